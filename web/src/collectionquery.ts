// The Cards page's filter as the server's description of a collection
// (createChat's `query`, searchCards' scope and tag; functions/cardchat/collection_query.py):
// "Chat with all N cards" sends this, not N ids.
import type { CollectionQuery } from './api';
import type { CardFilter, CardScope } from './cardfilter';

const SCOPES: Record<CardScope, CollectionQuery['scope']> = { yours: 'mine', shared: 'shared', public: 'public' };

/** The filter's collection as a query; null for an explicit id list, which only ids can describe. */
export function filterQuery(f: CardFilter): CollectionQuery | null {
  if (f.ids) return null;
  const q: CollectionQuery = { scope: f.scope ? SCOPES[f.scope] : 'visible' };
  if (f.tag) q.tag = f.tag;
  const text = f.text.trim();
  if (text) q.text = text;
  return q;
}
