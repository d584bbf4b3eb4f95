// Where the owner's chat came from: its saved collection, or the Cards page's
// filter it was made from, with "New chat in this collection". From
// chat_private, which only the owner reads: a visitor never learns either.
// A collection deleted since says so; a chat of a query collection then
// falls back on the filter it was made from.
import { h, replaceChildren } from '../app/dom';
import { collectionPath } from '../app/router';
import { queryCardsPath, startInCollection } from '../cards/collections';
import { collectionExists } from '../data/savedcollections';
import type { ChatPrivateDoc } from '../data/shapes';
import { openStartChat } from './startchat';

const again = (start: () => void) => h('button', { type: 'button', class: 'small', 'data-testid': 'new-chat-in-collection', onclick: start },
  'New chat in this collection');

export function chatOrigin(priv: ChatPrivateDoc): HTMLElement | null {
  if (priv.collection_id) {
    const id = priv.collection_id;
    const el = h('p', { class: 'meta', 'data-testid': 'chat-origin' }, 'From ',
      h('a', { href: collectionPath(id), 'data-testid': 'chat-collection-link' }, 'its saved collection'), ' ',
      again(() => startInCollection(id, priv.collection.description)));
    void collectionExists(id).then((exists) => {
      if (!exists) replaceChildren(el, h('span', { 'data-testid': 'chat-collection-deleted' }, 'Its saved collection was deleted.'),
        filterOrigin(priv, ' It was made from ', 'New chat over this filter'));
    });
    return el;
  }
  const origin = filterOrigin(priv, 'Made from ', 'New chat in this collection');
  return origin ? h('p', { class: 'meta', 'data-testid': 'chat-origin' }, origin) : null;
}

/** The Cards page's filter the chat was made from, with a new chat over it (null for a chat of listed cards). */
function filterOrigin(priv: ChatPrivateDoc, lead: string, startLabel: string): HTMLElement[] | null {
  const q = priv.collection_query;
  const href = queryCardsPath(q);
  if (!q || !href) return null;
  const start = again(() => openStartChat({ cardIds: [], query: q, count: priv.cards_considered, description: priv.collection.description,
    configuration: priv.collection.configuration }));
  start.textContent = startLabel;
  return [h('span', null, lead), h('a', { href, 'data-testid': 'chat-filter-link' }, 'this filter of your cards'), h('span', null, ' '), start];
}
