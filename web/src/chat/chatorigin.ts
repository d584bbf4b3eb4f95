// Where the owner's chat came from: its saved collection, or the Cards page's
// filter it was made from, with "New chat in this collection". From
// chat_private, which only the owner reads: a visitor never learns either.
import { h } from '../app/dom';
import { collectionPath } from '../app/router';
import { queryCardsPath, startInCollection } from '../cards/collections';
import type { ChatPrivateDoc } from '../data/docs';
import { openStartChat } from './startchat';

export function chatOrigin(priv: ChatPrivateDoc): HTMLElement | null {
  const again = (start: () => void) => h('button', { type: 'button', class: 'small', 'data-testid': 'new-chat-in-collection', onclick: start },
    'New chat in this collection');
  if (priv.collection_id) {
    const id = priv.collection_id;
    return h('p', { class: 'meta', 'data-testid': 'chat-origin' }, 'From ',
      h('a', { href: collectionPath(id), 'data-testid': 'chat-collection-link' }, 'its saved collection'), ' ',
      again(() => startInCollection(id, priv.collection.description)));
  }
  const q = priv.collection_query;
  const href = queryCardsPath(q);
  if (!q || !href) return null;
  return h('p', { class: 'meta', 'data-testid': 'chat-origin' }, 'Made from ',
    h('a', { href, 'data-testid': 'chat-filter-link' }, 'this filter of your cards'), ' ',
    again(() => openStartChat({ cardIds: [], query: q, count: priv.cards_considered, description: priv.collection.description,
      configuration: priv.collection.configuration })));
}
