// Search your chats (searchChats): titles and messages of your chats and of
// chats shared with you. Each hit shows its passage, its matches marked, and
// opens the chat at that message.
import shared from '../../../common/collections.json';
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { chatPath } from '../app/router';
import { searchChats, type ChatSearchResult } from '../data/api';

const MAX_CHARS = shared.chat_search.query_max_chars;

/** The passage with its matches in <mark>. */
export function markedPassage(r: Pick<ChatSearchResult, 'passage' | 'highlights'>): Array<string | HTMLElement> {
  const out: Array<string | HTMLElement> = [];
  let pos = 0;
  for (const [start, end] of [...r.highlights].sort((a, b) => a[0] - b[0])) {
    if (start < pos || end > r.passage.length) continue;
    out.push(r.passage.slice(pos, start), h('mark', null, r.passage.slice(start, end)));
    pos = end;
  }
  out.push(r.passage.slice(pos));
  return out.filter((p) => p !== '');
}

const ROLE = { user: 'You asked', assistant: 'Answer', title: 'Title' } as const;

function resultItem(r: ChatSearchResult): HTMLElement {
  return h('li', null, h('a', { href: chatPath(r.chat_id, r.message_index), 'data-testid': 'chat-search-result', 'data-chat-id': r.chat_id },
    h('span', { class: 'chat-item-title' }, r.title || 'Untitled chat'),
    h('span', { class: 'chat-item-meta' }, ROLE[r.role] ?? '', r.shared ? ' · shared with you' : ''),
    h('span', { class: 'passage', 'data-testid': 'chat-search-passage' }, markedPassage(r))));
}

/** The search box; `onActive(true)` while results are shown instead of the lists. */
export function chatSearchBox(onActive: (active: boolean) => void): HTMLElement {
  const input = h('input', { type: 'search', id: 'chat-search', maxlength: MAX_CHARS, 'data-testid': 'chat-search',
    placeholder: 'Search your chats', 'aria-label': 'Search your chats' });
  const results = h('div', { 'data-testid': 'chat-search-results', role: 'status' });
  let asked = 0;
  const run = async () => {
    const text = input.value.trim();
    const mine = ++asked;
    onActive(text !== '');
    if (!text) return replaceChildren(results);
    replaceChildren(results, h('p', { class: 'muted' }, 'Searching…'));
    try {
      const { results: hits } = await searchChats({ text });
      if (mine !== asked) return;
      replaceChildren(results, hits.length ? h('ul', { class: 'chat-items' }, hits.map(resultItem))
        : h('p', { class: 'muted', 'data-testid': 'chat-search-none' }, 'No chat says that.'));
    } catch (err) {
      if (mine === asked) replaceChildren(results, h('p', { class: 'error', role: 'alert' }, describeError(err, 'Searching')));
    }
  };
  const form = h('form', { class: 'chat-search', role: 'search' }, input, results);
  form.addEventListener('submit', (e) => { e.preventDefault(); void run(); });
  input.addEventListener('search', () => void run()); // the clear button of a search field
  return form;
}
