// What the Cards page's list shows for a filter: the cards of the chosen
// source (card_sources) in title order, an explicit id list, or the server's search for the
// filter's words; and how many it holds.
import { filterCards, type CardFilter } from './cardfilter';
import { filteredPages, type CardPages } from '../data/cardpager';
import { idListPages, scopePages, type ScopeSpec } from '../data/cardqueries';
import { filterQuery } from './collectionquery';
import type { CardCounts } from './cardcounts';
import { searchPages } from './cardsearch';
import type { CardDoc } from '../data/shapes';

/**
 * What the list shows: its cards' pages in their order and how many it holds
 * (null: no query can count it; the pager then reads to the end and counts).
 * The view's `setContent` swaps it: the text search (searchCards) plugs in there.
 */
export interface ListContent {
  pages: CardPages;
  /** Asked again after a failure. */
  count: () => Promise<number | null>;
  /** Cards written while the page is open join the list when this admits them (null: never, a ranked result). */
  admits: ((c: CardDoc) => boolean) | null;
  /** Loaded in this order (null: the pages' own, e.g. an id list or a ranking). */
  ordered: boolean;
}

/** The list for `f` as it is now, for reader `uid`; `spec` is whose cards it names. */
export function listContentFor(f: CardFilter, uid: string, spec: ScopeSpec, counts: CardCounts): ListContent {
  const admits = (c: CardDoc) => filterCards([c], f, uid).length > 0;
  const words = f.text.trim() !== '';
  if (f.ids) {
    const narrowed = f.scope || f.tag || words;
    const src = idListPages(f.ids);
    return { pages: narrowed ? filteredPages(src, admits) : src, count: async () => null, admits, ordered: false };
  }
  const query = filterQuery(f);
  // The words are the server's search (searchCards): it finds cards the page never loaded.
  if (words && query?.text) return { ...searchPages({ ...query, text: query.text }), admits: null, ordered: false };
  return { pages: scopePages(uid, spec, f.tag), count: () => counts.count(spec, f.tag), admits, ordered: true };
}
