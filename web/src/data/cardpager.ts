// The cards view's data, a page at a time: 100,000 of the reader's
// cards are never loaded whole. A CardPages hands out the next cards in its
// order; they compose (a client-side filter where Firestore cannot
// filter, an explicit id list), and the
// CardPager keeps what was loaded, fetches more when the list nears its end
// and retries a failed page with backoff instead of looking empty.
import type { CardDoc } from './shapes';
import { afterDelay, retryDelay, type Schedule } from './retry';

export interface CardPage {
  cards: CardDoc[];
  /** Nothing follows: the pages are exhausted. */
  done: boolean;
}

/**
 * Hands out cards in its order, `n` at a time. A call that fails leaves the
 * pages where they were, so calling again retries the same page.
 */
export interface CardPages {
  next(n: number): Promise<CardPage>;
}

/** Fetches up to `n` cards ordered after `after` (null: from the start). */
export type PageFetch = (after: CardDoc | null, n: number) => Promise<CardDoc[]>;

/**
 * Firestore's order of the pages: title, then id, both compared as Unicode
 * code points (Firestore compares strings by their UTF-8 bytes, which is the
 * same order; JavaScript's `<` compares UTF-16 units, which is not).
 */
export function cardOrder(a: CardDoc, b: CardDoc): number {
  return codePointCompare(a.title, b.title) || codePointCompare(a.id, b.id);
}

export function codePointCompare(a: string, b: string): number {
  if (a === b) return 0;
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d) return d;
  }
  return x.length - y.length;
}

/** A cursor-paged query: each page starts after the last card handed out. */
export function cursorPages(fetch: PageFetch): CardPages {
  let last: CardDoc | null = null;
  let done = false;
  return {
    async next(n) {
      if (done) return { cards: [], done };
      const cards = await fetch(last, n);
      if (cards.length) last = cards[cards.length - 1];
      done = cards.length < n;
      return { cards, done };
    },
  };
}

/** The cards of `pages` that `keep` admits (what Firestore cannot filter: a second array-contains, a text filter). */
export function filteredPages(pages: CardPages, keep: (c: CardDoc) => boolean): CardPages {
  let carry: CardDoc[] = [];
  let done = false;
  return {
    async next(n) {
      const out = carry;
      carry = [];
      try {
        while (out.length < n && !done) {
          const page = await pages.next(n);
          out.push(...page.cards.filter(keep));
          done = page.done;
        }
      } catch (e) {
        carry = out; // already fetched: handed out on the retry
        throw e;
      }
      carry = out.splice(n);
      return { cards: out, done: done && !carry.length };
    },
  };
}

/** Exactly these ids, in this order; `read` answers null for a card the reader may not see (or that is gone). */
export function idPages(ids: readonly string[], read: (ids: string[]) => Promise<Array<CardDoc | null>>): CardPages {
  let pos = 0;
  return {
    async next(n) {
      const slice = ids.slice(pos, pos + n);
      const cards = (await read(slice)).filter((c): c is CardDoc => c !== null);
      pos += slice.length;
      return { cards, done: pos >= ids.length };
    },
  };
}

export interface PagerOptions {
  pageSize: number;
  /** The list's order, for placing a card that changed after it was loaded (none: an id list keeps its order). */
  order?: (a: CardDoc, b: CardDoc) => number;
  retryDelay?: (attempt: number) => number;
  schedule?: Schedule;
}

/**
 * What a list has loaded from its pages, fetching pages as the reader nears
 * the end (`want`). A failed page is kept as `error` (the list says so and
 * that it is retrying) and asked again after `retryDelay`; what was loaded
 * stays. `onChange` follows every change of state.
 */
export class CardPager {
  readonly cards: CardDoc[] = [];
  done = false;
  error: unknown = null;
  /** Failed attempts at the current page. */
  attempt = 0;
  private wanted = 0;
  private busy = false;
  private stopped = false;
  private cancelRetry: (() => void) | null = null;
  /** What the live feed said of the cards it reported since the list started (null: gone). */
  private readonly live = new Map<string, CardDoc | null>();
  private waiters: Array<{ n: number; resolve: () => void }> = [];
  private readonly opts: Required<Omit<PagerOptions, 'order'>> & Pick<PagerOptions, 'order'>;

  constructor(private readonly pages: CardPages, opts: PagerOptions, private readonly onChange: () => void) {
    this.opts = { retryDelay, schedule: afterDelay, ...opts };
  }

  /** Have at least `n` cards loaded (or all there are). */
  want(n: number): void {
    if (n <= this.wanted) return;
    this.wanted = n;
    void this.pump();
  }

  /** Resolves once `n` cards are loaded or the pages are done (an explicit "select all", say). */
  loadUpTo(n: number): Promise<CardDoc[]> {
    return new Promise((resolve) => {
      this.waiters.push({ n, resolve: () => resolve(this.cards.slice(0, n)) });
      this.want(n);
      this.settleWaiters();
    });
  }

  /**
   * A card written after the list was loaded (the live feed): placed where the order puts it, if that is
   * within what is loaded; else when a page reaches it. The feed's version wins over a page's copy: a page
   * may have been read before the write (the first page in flight while the feed answers, or cards a merged
   * source fetched ahead), and would otherwise leave the card out, or bring back an old one.
   */
  upsert(card: CardDoc): void {
    this.live.set(card.id, card);
    const at = this.cards.findIndex((c) => c.id === card.id);
    if (at >= 0) this.cards.splice(at, 1);
    if (!this.opts.order) {
      if (at >= 0) this.cards.splice(at, 0, card);
    } else {
      this.place(card);
    }
    this.onChange();
  }

  /** A card deleted (or no longer in the view) after the list was loaded: a page read before cannot bring it back. */
  remove(id: string): void {
    this.live.set(id, null);
    const at = this.cards.findIndex((c) => c.id === id);
    if (at < 0) return;
    this.cards.splice(at, 1);
    this.onChange();
  }

  /** Into the ordered list, if the loaded cards reach its place (or all are loaded). */
  private place(card: CardDoc): void {
    const order = this.opts.order!;
    const pos = this.cards.findIndex((c) => order(card, c) < 0);
    if (pos >= 0) this.cards.splice(pos, 0, card);
    else if (this.done) this.cards.push(card);
  }

  dispose(): void {
    this.stopped = true;
    this.cancelRetry?.();
  }

  private async pump(): Promise<void> {
    if (this.busy || this.stopped || this.cancelRetry) return;
    this.busy = true;
    try {
      while (!this.done && this.cards.length < this.wanted && !this.stopped) await this.fetchPage();
    } catch (e) {
      if (this.stopped) return;
      this.error = e;
      this.attempt++;
      this.cancelRetry = this.opts.schedule(() => {
        this.cancelRetry = null;
        void this.pump();
      }, this.opts.retryDelay(this.attempt));
      this.onChange();
    } finally {
      this.busy = false;
    }
  }

  private async fetchPage(): Promise<void> {
    const page = await this.pages.next(this.opts.pageSize);
    if (this.stopped) return;
    const known = new Set(this.cards.map((c) => c.id));
    for (const c of page.cards) {
      if (known.has(c.id)) continue; // a live upsert brought it already
      const latest = this.live.has(c.id) ? this.live.get(c.id) : c;
      if (latest && (!this.opts.order || latest === c)) this.cards.push(latest);
    }
    this.done = page.done;
    // The feed's cards that sort where this page reached (or anywhere, once all are loaded).
    if (this.opts.order) {
      const listed = new Set(this.cards.map((c) => c.id));
      for (const c of this.live.values()) if (c && !listed.has(c.id)) this.place(c);
    }
    this.error = null;
    this.attempt = 0;
    this.onChange();
    this.settleWaiters();
  }

  private settleWaiters(): void {
    const ready = this.waiters.filter((w) => this.done || this.cards.length >= w.n);
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }
}
