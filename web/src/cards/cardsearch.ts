// The Cards page's text filter, answered by the server (searchCards):
// typing a word finds cards the page never loaded. The page's own debounce and
// list generations drop answers to an older text; a failure reaches the
// list as a failure (the pager's error state), never as "no match".
import type { CollectionQuery, SearchHit } from '../data/api';
import type { CardPages } from '../data/cardpager';
import type { CardDoc } from '../data/shapes';

/** Cards per answer: the server's maximum. */
export const SEARCH_LIMIT = 50;

export interface SearchAnswer {
  cards: CardDoc[];
  /** Cards holding a word of the text: what "Chat with all" over the same query takes. */
  matching: number;
}

/**
 * The best SEARCH_LIMIT cards of `query`'s collection for its text, as a list's
 * pages (one page), and its `matching` count; both from one call, asked again
 * after a failure.
 */
export function searchPages(query: CollectionQuery & { text: string }): { pages: CardPages; count: () => Promise<number> } {
  let answer: Promise<SearchAnswer> | null = null;
  const ask = (): Promise<SearchAnswer> => {
    // The callables' chunk (the Functions SDK) loads with the first search, not with the page.
    answer ??= import('../data/api').then((api) => api.searchCards({ ...query, limit: SEARCH_LIMIT }))
      .then((r) => ({ cards: r.cards.map(asCard), matching: r.matching }))
      .catch((e: unknown) => { answer = null; throw e; });
    return answer;
  };
  return {
    pages: { async next() { return { cards: (await ask()).cards, done: true }; } },
    count: async () => (await ask()).matching,
  };
}

/** A hit as the card list shows a card: its snippet in place of the body (`updated` -1: not the stored card). */
function asCard(hit: SearchHit): CardDoc {
  return { id: hit.id, title: hit.title, body: hit.snippet, owner: hit.owner, visibility: hit.visibility, viewers: [], tags: hit.tags, updated: -1, derived_from: null };
}

/** The count line while a text filters the page. */
export function describeSearch(text: string, matching: number, shown: number): string {
  // the ranking also brings cards close in meaning that hold none of the words
  const best = shown !== matching ? ` · the best ${shown} shown` : '';
  return `${matching} card${matching === 1 ? '' : 's'} match “${text}”${best}`;
}
