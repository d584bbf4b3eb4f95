// The user's chats, most recently updated first.
import { h, replaceChildren } from '../dom';
import { describeError } from '../errors';
import { chatPath, router } from '../router';
import type { Session } from '../session';
import { watchChats, type ChatDoc } from '../queries';
import { renderSignIn } from './signin';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The chat list, live; used as the sidebar of the chat view. */
export function mountChatList(el: HTMLElement, uid: string, activeId: string | null): () => void {
  replaceChildren(el, h('p', { class: 'muted' }, 'Loading chats…'));
  return watchChats(
    uid,
    (chats) => renderList(el, chats, activeId),
    (err) => replaceChildren(el, h('p', { class: 'error', role: 'alert' }, `Could not load chats: ${describeError(err)}`)),
  );
}

function renderList(el: HTMLElement, chats: ChatDoc[], activeId: string | null): void {
  replaceChildren(el,
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
  );
}

/** /chat/: opens the most recent chat, or says there are none. */
export function mountChats(root: HTMLElement, s: Session): () => void {
  if (!s.user) {
    renderSignIn(root, 'Sign in to see your chats.');
    return () => {};
  }
  replaceChildren(root, h('p', { class: 'muted', role: 'status', 'data-testid': 'chats-loading' }, 'Loading chats…'));
  let done = false;
  const unsubscribe = watchChats(
    s.user.uid,
    (chats) => {
      if (done) return;
      if (chats.length) {
        done = true;
        router.navigate(chatPath(chats[0].id), { replace: true });
        return;
      }
      replaceChildren(root, h('section', { class: 'panel' }, h('h1', null, 'Chats'),
        h('p', { 'data-testid': 'no-chats' }, 'No chats yet. '), h('a', { href: '/' }, 'Pick some cards and start one.')));
    },
    (err) => replaceChildren(root, h('p', { class: 'error', role: 'alert' }, `Could not load chats: ${describeError(err)}`)),
  );
  return () => {
    done = true;
    unsubscribe();
  };
}
