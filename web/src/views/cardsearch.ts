// The Cards page's text filter, answered by the server (searchCards, issue 21):
// typing a word finds cards the page never loaded. Debounced; an answer to an
// older text is dropped; a failure is shown as a failure, never as "no match".
// The page hands over the text and its scope/tag, and shows what comes back.
import { searchCards, type SearchHit } from '../api';
import type { CardDoc, CardFilter } from '../cardfilter';
import { filterQuery } from '../collectionquery';
import { describeError } from '../errors';

/** Cards per answer: the server's maximum. */
export const SEARCH_LIMIT = 50;
const DEBOUNCE_MS = 250;

export type SearchState =
  | { kind: 'idle' }
  | { kind: 'searching'; text: string }
  | { kind: 'results'; text: string; cards: CardDoc[]; matching: number }
  | { kind: 'error'; text: string; message: string };

export class CardSearch {
  state: SearchState = { kind: 'idle' };
  private timer: ReturnType<typeof setTimeout> | undefined;
  private asked = 0;

  constructor(private readonly onChange: (state: SearchState) => void) {}

  /** The filter changed: search its text (after a pause in typing), or stop searching when it has none. */
  update(filter: CardFilter): void {
    clearTimeout(this.timer);
    const query = filterQuery(filter);
    const text = query?.text;
    const asked = ++this.asked;
    if (!query || !text) {
      this.set({ kind: 'idle' });
      return;
    }
    this.set({ kind: 'searching', text });
    this.timer = setTimeout(() => {
      const { scope, tag } = query;
      searchCards({ text, scope, ...(tag ? { tag } : {}), limit: SEARCH_LIMIT }).then(
        (r) => asked === this.asked && this.set({ kind: 'results', text, cards: r.cards.map(asCard), matching: r.matching }),
        (err) => asked === this.asked && this.set({ kind: 'error', text, message: `Search failed: ${describeError(err)}` }),
      );
    }, DEBOUNCE_MS);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.asked++;
  }

  private set(state: SearchState): void {
    this.state = state;
    this.onChange(state);
  }
}

/** A hit as the card list shows a card: its snippet in place of the body. */
function asCard(hit: SearchHit): CardDoc {
  return { id: hit.id, title: hit.title, body: hit.snippet, owner: hit.owner, visibility: hit.visibility, viewers: [], tags: hit.tags, updated: -1 };
}

/** The count line while searching. */
export function describeSearch(state: SearchState): string {
  switch (state.kind) {
    case 'searching': return `Searching for “${state.text}”…`;
    case 'results': {
      const n = state.matching;
      // the ranking also brings cards close in meaning that hold none of the words
      const best = state.cards.length !== n ? ` · the best ${state.cards.length} shown` : '';
      return `${n} card${n === 1 ? '' : 's'} match “${state.text}”${best}`;
    }
    case 'error': return state.message;
    default: return '';
  }
}
