// The user's chats, most recently updated first.
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { failureText } from '../app/loadstate';
import { chatPath, router } from '../app/router';
import type { Session } from '../data/session';
import { watchSharedChats } from '../data/chatviewers';
import { getChatAuthor, watchChats } from '../data/chatreads';
import { renderSignIn } from '../account/signin';
import type { ChatDoc } from '../data/shapes';
import { chatSearchBox } from './chatsearch';
import { leaveChat } from '../data/api';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The chat list, live, and below it the chats shared with the user; used as the sidebar of the chat view. */
export function mountChatList(el: HTMLElement, uid: string, activeId: string | null): () => void {
  const own = h('div');
  const shared = h('div');
  replaceChildren(el, chatSearchBox((active) => { own.hidden = shared.hidden = active; }), own, shared);
  replaceChildren(own, h('p', { class: 'muted' }, 'Loading chats…'));
  let chats: ChatDoc[] | null = null;
  const stopOwn = watchChats(
    uid,
    (c) => renderList(own, (chats = c), activeId),
    // A failed listener never empties the list: the chats already listed stay; the failure is said above them, never as "no chats".
    (err) => replaceChildren(own, failureNote(err), chats ? ownList(chats, activeId) : null),
  );
  const stopShared = mountSharedList(shared, uid, activeId);
  return () => {
    stopOwn();
    stopShared();
  };
}

// --- "Shared with me" ------------------------------------------------------

/** Author chip names by chat id: one read per shared chat per page load. */
const authors = new Map<string, Promise<string | null>>();

function authorChip(chatId: string): HTMLElement {
  const chip = h('span', { class: 'chip author-chip', 'data-testid': 'author-chip', hidden: true });
  if (!authors.has(chatId)) authors.set(chatId, getChatAuthor(chatId));
  void authors.get(chatId)?.then((name) => {
    chip.textContent = name ? `by ${name}` : '';
    chip.hidden = !name;
  });
  return chip;
}

/** The chats others shared with the user, live (nothing at all while there are none). */
export function mountSharedList(el: HTMLElement, uid: string, activeId: string | null): () => void {
  return watchSharedChats(
    uid,
    (chats) => replaceChildren(el, chats.length
      ? [h('h2', { class: 'list-title' }, 'Shared with me'),
        h('ul', { class: 'chat-items', 'data-testid': 'shared-chat-list' }, chats.map((c) =>
          h('li', null, h('a', {
            href: chatPath(c.id), 'data-testid': 'shared-chat-item', 'data-chat-id': c.id,
            'aria-current': c.id === activeId ? 'page' : undefined,
          },
          h('span', { class: 'chat-item-title' }, c.title || 'Untitled chat'),
          h('span', { class: 'chat-item-meta' }, authorChip(c.id), ' ', c.last_updated ? when.format(c.last_updated) : '')),
          leaveButton(c.id))))]
      : []),
    (err) => replaceChildren(el, h('p', { class: 'error', role: 'alert', 'data-testid': 'load-failed' },
      `Couldn’t load the chats shared with you — retrying (${describeError(err)})`)),
  );
}

/** Stops reading a chat shared with the user; the live list then drops it. */
function leaveButton(chatId: string): HTMLElement {
  const button = h('button', { type: 'button', class: 'link', 'data-testid': 'leave-chat', 'data-chat-id': chatId }, 'Leave');
  button.addEventListener('click', () => {
    if (!confirm('Leave this chat? You will no longer see it, unless its owner shares it with you again.')) return;
    button.disabled = true;
    leaveChat({ chat_id: chatId }).then(() => {
      const at = router.current();
      if (at.name === 'chat' && at.id === chatId) router.navigate('/chats', { replace: true });
    }, (e: unknown) => {
      button.disabled = false;
      button.textContent = `Leave (failed: ${describeError(e)})`;
    });
  });
  return button;
}

function failureNote(err: unknown): HTMLElement {
  return h('p', { class: 'error', role: 'alert', 'data-testid': 'load-failed' }, failureText('chats', err));
}

function renderList(el: HTMLElement, chats: ChatDoc[], activeId: string | null): void {
  replaceChildren(el, ownList(chats, activeId));
}

function ownList(chats: ChatDoc[], activeId: string | null): HTMLElement[] {
  return [
    h('h2', { class: 'list-title' }, 'Your chats'),
    chats.length
      ? h('ul', { class: 'chat-items', 'data-testid': 'chat-list' }, chats.map((c) =>
        h('li', null, h('a', {
          href: chatPath(c.id), 'data-testid': 'chat-list-item', 'data-chat-id': c.id,
          'aria-current': c.id === activeId ? 'page' : undefined,
        },
        h('span', { class: 'chat-item-title' }, c.title || 'Untitled chat'),
        h('span', { class: 'chat-item-meta' }, c.last_updated ? when.format(c.last_updated) : '', c.published ? ' · published' : '')))))
      : h('p', { class: 'muted', 'data-testid': 'no-chats' }, 'No chats yet. Pick some cards and start one.'),
  ];
}

/** /chat/: opens the most recent chat, or says there are none. */
export function mountChats(root: HTMLElement, s: Session): () => void {
  if (!s.user) {
    renderSignIn(root, 'Sign in to see your chats.');
    return () => {};
  }
  replaceChildren(root, h('p', { class: 'muted', role: 'status', 'data-testid': 'chats-loading' }, 'Loading chats…'));
  let done = false;
  let stopShared: (() => void) | null = null;
  const uid = s.user.uid;
  const unsubscribe = watchChats(
    uid,
    (chats) => {
      if (done) return;
      if (chats.length) {
        done = true;
        router.navigate(chatPath(chats[0].id), { replace: true });
        return;
      }
      const shared = h('div');
      replaceChildren(root, h('section', { class: 'panel' }, h('h1', null, 'Chats'),
        h('p', { 'data-testid': 'no-chats' }, 'No chats yet. '), h('a', { href: '/' }, 'Pick some cards and start one.'), shared));
      stopShared?.();
      stopShared = mountSharedList(shared, uid, null);
    },
    (err) => {
      if (!done) replaceChildren(root, failureNote(err));
    },
  );
  return () => {
    done = true;
    unsubscribe();
    stopShared?.();
  };
}
