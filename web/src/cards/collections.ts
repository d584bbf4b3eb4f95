// Saved collections: the list (/collections), and one (/collections/{id}) with
// its instructions, its chats, "New chat in this collection", and the owner's
// Edit and Delete.
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { cardsPath, chatPath, collectionPath, reviewPath } from '../app/router';
import { openStartChat } from '../chat/startchat';
import type { CollectionQuery } from '../data/api';
import { chatsOfCollection, getChat, watchCollection, watchCollections, type SavedCollection } from '../data/savedcollections';
import { confirmDeleteCollection, openEditCollection } from './editcollection';

/** What a collection holds, in words. */
export function describeSaved(c: Pick<SavedCollection, 'query' | 'card_ids'>): string {
  if (c.card_ids) return `${c.card_ids.length} listed card${c.card_ids.length === 1 ? '' : 's'}`;
  const q = c.query ?? {};
  const whose = { mine: 'My own cards', shared: 'Cards shared with me', mine_and_shared: 'My cards and those shared with me', owner: 'One person’s public cards' }[q.scope ?? 'mine'];
  return [whose, q.tag ? `tag “${q.tag}”` : '', q.text ? `matching “${q.text}”` : ''].filter(Boolean).join(', ');
}

/** The Cards page showing a collection's query (null for one of ids, which a filter cannot show). */
export function queryCardsPath(q: CollectionQuery | null): string | null {
  if (!q) return null;
  const scope = q.scope === 'shared' || q.scope === 'owner' ? q.scope : null;
  return cardsPath({ tag: q.tag ?? null, q: q.text ?? '', cards: null, chat: null, scope, owner: q.owner ?? null });
}

/** "New chat in this collection": the start dialog, sending the collection's id. */
export function startInCollection(id: string, name: string): void {
  openStartChat({ cardIds: [], collectionId: id, heading: `New chat in “${name || 'this collection'}”`,
    description: name, configuration: { collection_id: id } });
}

export function mountCollections(root: HTMLElement, uid: string): () => void {
  const list = h('div', null, h('p', { class: 'muted' }, 'Loading collections…'));
  replaceChildren(root, h('section', { class: 'panel', 'data-testid': 'collections' }, h('h1', null, 'Collections'),
    h('p', { class: 'hint' }, 'Save a filter of the Cards page as a collection to come back to it, with your own instructions.'), list));
  return watchCollections(uid, (cs) => replaceChildren(list, cs.length
    ? h('ul', { class: 'chat-items', 'data-testid': 'collection-list' }, cs.map((c) => h('li', null,
      h('a', { href: collectionPath(c.id), 'data-testid': 'collection-item', 'data-collection-id': c.id },
        h('span', { class: 'chat-item-title' }, c.name), h('span', { class: 'chat-item-meta' }, describeSaved(c))))))
    : h('p', { 'data-testid': 'no-collections' }, 'No collections yet. ', h('a', { href: '/' }, 'Filter your cards and save one.'))),
  (err) => replaceChildren(list, h('p', { class: 'error', role: 'alert' }, `Could not load your collections: ${describeError(err)}`)));
}

export function mountCollection(root: HTMLElement, id: string, uid: string): () => void {
  let chatsShown = false;
  replaceChildren(root, h('p', { class: 'muted', role: 'status' }, 'Loading the collection…'));
  const chats = h('ul', { class: 'chat-items', 'data-testid': 'collection-chats' });
  const stop = watchCollection(id, (c) => {
    if (!c) {
      replaceChildren(root, h('section', { class: 'panel', 'data-testid': 'collection-gone' }, h('h1', null, 'Not found'),
        h('p', null, 'This collection was deleted, or is not yours.'), h('a', { href: '/collections' }, 'Your collections')));
      return;
    }
    replaceChildren(root, collectionPanel(c, chats));
    if (!chatsShown) void showChats(chats, uid, id);
    chatsShown = true;
  }, (err) => replaceChildren(root, h('p', { class: 'error', role: 'alert' }, `Could not load the collection: ${describeError(err)}`)));
  return stop;
}

function collectionPanel(c: SavedCollection, chats: HTMLElement): HTMLElement {
  const cardsHref = queryCardsPath(c.query);
  return h('section', { class: 'panel', 'data-testid': 'collection' },
    h('p', null, h('a', { href: '/collections' }, 'Collections')),
    h('h1', { 'data-testid': 'collection-title' }, c.name),
    h('p', { class: 'meta', 'data-testid': 'collection-described' }, describeSaved(c),
      cardsHref ? [' · ', h('a', { href: cardsHref, 'data-testid': 'collection-cards' }, 'Open its cards')] : null),
    c.instructions ? h('p', { class: 'hint', 'data-testid': 'collection-instructions-shown' }, `Instructions: ${c.instructions}`) : null,
    h('p', { class: 'actions' },
      h('button', { type: 'button', class: 'primary', 'data-testid': 'new-chat-in-collection',
        onclick: () => startInCollection(c.id, c.name) }, 'New chat in this collection'),
      h('a', { href: reviewPath({ collection: c.id }), class: 'button', 'data-testid': 'review-collection' }, 'Review cards'),
      h('button', { type: 'button', 'data-testid': 'edit-collection', onclick: () => openEditCollection(c) }, 'Edit…'),
      h('button', { type: 'button', class: 'danger', 'data-testid': 'delete-collection', onclick: () => confirmDeleteCollection(c) }, 'Delete…')),
    h('h2', { class: 'list-title' }, 'Its chats'), chats);
}

/** The owner's chats made from collection `id`, newest first. */
async function showChats(chats: HTMLElement, uid: string, id: string): Promise<void> {
  try {
    const ids = await chatsOfCollection(uid, id);
    const docs = await Promise.all(ids.map((chatId) => getChat(chatId).catch(() => null)));
    const found = docs.filter((d) => d !== null).sort((a, b) => (b.last_updated?.getTime() ?? 0) - (a.last_updated?.getTime() ?? 0));
    replaceChildren(chats, found.length ? found.map((d) => h('li', null, h('a', { href: chatPath(d.id), 'data-testid': 'collection-chat' },
      h('span', { class: 'chat-item-title' }, d.title || 'Untitled chat'))))
      : h('li', { class: 'muted', 'data-testid': 'no-collection-chats' }, 'No chats yet.'));
  } catch (err) {
    replaceChildren(chats, h('li', { class: 'error', role: 'alert' }, `Could not list its chats: ${describeError(err)}`));
  }
}
