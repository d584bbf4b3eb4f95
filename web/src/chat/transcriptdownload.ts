// The owner's "Download transcript": the chat as Markdown, citations resolved
// to card titles, and the list of the cards in its context. Only
// the chat view's owner branch mounts it: the context is the owner's alone.
import { h } from '../app/dom';
import { describeError } from '../app/errors';
import { download, transcriptToMarkdown } from '../importexport/exportcards';
import { getCard } from '../data/cardbyid';
import type { ChatDoc, ChatPrivateDoc, MessageDoc } from '../data/shapes';

export interface TranscriptSource { chat: ChatDoc | null; priv: ChatPrivateDoc | null | undefined; messages: MessageDoc[] | null }

/** id → title of the cards the owner can still read (a card withdrawn or unshared since is left out). */
async function titles(ids: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await Promise.all([...new Set(ids.filter(Boolean))].map(async (id) => {
    const card = await getCard(id).catch(() => null);
    if (card) out.set(id, card.title);
  }));
  return out;
}

export function transcriptButton(source: () => TranscriptSource): HTMLElement {
  const status = h('span', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'button', class: 'small', 'data-testid': 'download-transcript' }, 'Download transcript');
  button.addEventListener('click', async () => {
    const { chat, priv, messages } = source();
    if (!chat || !messages) return;
    button.disabled = true;
    try {
      const cardIds = priv?.card_ids ?? [];
      const md = transcriptToMarkdown(chat.title, messages, cardIds, await titles(cardIds), true);
      download(`${(chat.title || 'chat').replace(/[^\w -]+/g, '').slice(0, 60) || 'chat'}.md`, md, 'text/markdown');
      status.textContent = '';
    } catch (err) {
      status.textContent = `Could not export: ${describeError(err)}`;
    }
    button.disabled = false;
  });
  return h('span', { class: 'transcript-export' }, button, status);
}
