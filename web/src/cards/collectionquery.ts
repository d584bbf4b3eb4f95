// The Cards page's filter as the server's description of a collection
// (createChat's `query`, searchCards' fields; functions/cardchat/parsing/collection_query.py):
// "Chat with all N cards" sends this, not N ids. The scope is always named,
// the reader's own cards when the page names none.
import type { CollectionQuery } from '../data/api';
import type { CardFilter } from './cardfilter';

/** The filter's collection as a query; null for an explicit id list, which only ids can describe. */
export function filterQuery(f: CardFilter): CollectionQuery | null {
  if (f.ids) return null;
  const scope = f.scope ?? 'mine';
  if (scope === 'owner' && !f.owner) return null;
  const q: CollectionQuery = { scope };
  if (scope === 'owner' && f.owner) q.owner = f.owner;
  if (f.tag) q.tag = f.tag;
  const text = f.text.trim();
  if (text) q.text = text;
  return q;
}
