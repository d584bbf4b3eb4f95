import { describe, expect, it } from 'vitest';
import {
  CardPager, cardOrder, codePointCompare, cursorPages, filteredPages, idPages, type PageFetch,
} from './cardpager';
import type { CardDoc } from './shapes';

function card(id: string, title: string, owner = 'me', tags: string[] = []): CardDoc {
  return { id, title, body: '', owner, visibility: 'private', viewers: [], tags, updated: 0, derived_from: null };
}

/** What Firestore does for a cursor query: the cards after `after` in title/id order, `n` of them. */
function deckFetch(all: CardDoc[], calls: number[] = [], failOn: Set<number> = new Set()): PageFetch {
  const sorted = [...all].sort(cardOrder);
  return async (after, n) => {
    calls.push(n);
    if (failOn.delete(calls.length)) throw Object.assign(new Error('unreachable'), { code: 'unavailable' });
    const from = after ? sorted.findIndex((c) => cardOrder(c, after) > 0) : 0;
    return from < 0 ? [] : sorted.slice(from, from + n);
  };
}

const ids = (cs: readonly CardDoc[]) => cs.map((c) => c.id);

/** A clock the test moves by hand: scheduled retries run when it says so. */
function manualSchedule() {
  const due: Array<() => void> = [];
  return {
    schedule: (run: () => void) => { due.push(run); return () => due.splice(due.indexOf(run), 1); },
    runAll: () => due.splice(0).forEach((r) => r()),
    pending: () => due.length,
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('cardOrder', () => {
  it('orders by title then id, by code point as Firestore does (not by UTF-16 unit)', () => {
    expect(codePointCompare('\u{1F600}', '\uFFFD')).toBeGreaterThan(0); // '<' says the emoji sorts first
    expect(['b', 'a', 'c'].map((t, i) => card(`x${i}`, t)).sort(cardOrder).map((c) => c.title)).toEqual(['a', 'b', 'c']);
    expect(cardOrder(card('a', 'Same'), card('b', 'Same'))).toBeLessThan(0);
  });
});

describe('pages', () => {
  const deck = Array.from({ length: 25 }, (_, i) => card(`c${String(i).padStart(2, '0')}`, `Title ${String(i).padStart(2, '0')}`));

  it('cursorPages hands out every card once, in order, page by page', async () => {
    const calls: number[] = [];
    const src = cursorPages(deckFetch(deck, calls));
    const got: CardDoc[] = [];
    for (let done = false; !done;) {
      const page = await src.next(10);
      got.push(...page.cards);
      done = page.done;
    }
    expect(ids(got)).toEqual(ids(deck));
    expect(calls).toEqual([10, 10, 10]);
  });

  it('a failed page is asked again from the same cursor', async () => {
    const src = cursorPages(deckFetch(deck, [], new Set([2])));
    await src.next(10);
    await expect(src.next(10)).rejects.toThrow('unreachable');
    expect(ids((await src.next(10)).cards)).toEqual(ids(deck.slice(10, 20)));
  });

  it('filteredPages reads on until a page of matches is full, and says when the pages are done', async () => {
    const tagged = deck.map((c, i) => ({ ...c, tags: i % 5 === 0 ? ['t'] : [] }));
    const src = filteredPages(cursorPages(deckFetch(tagged)), (c) => c.tags.includes('t'));
    const a = await src.next(3);
    expect(ids(a.cards)).toEqual(['c00', 'c05', 'c10']);
    const b = await src.next(3);
    expect(ids(b.cards)).toEqual(['c15', 'c20']);
    expect(b.done).toBe(true);
  });

  it('idPages keeps the list\'s order and leaves out what the reader may not see', async () => {
    const src = idPages(['z', 'a', 'hidden', 'b'], async (slice) => slice.map((id) => (id === 'hidden' ? null : card(id, id))));
    const a = await src.next(2);
    const b = await src.next(2);
    expect([...ids(a.cards), ...ids(b.cards)]).toEqual(['z', 'a', 'b']);
    expect([a.done, b.done]).toEqual([false, true]);
  });
});

describe('CardPager', () => {
  const deck = Array.from({ length: 120 }, (_, i) => card(`c${String(i).padStart(3, '0')}`, `T${String(i).padStart(3, '0')}`));

  it('loads only what is wanted, a page at a time', async () => {
    const calls: number[] = [];
    const pager = new CardPager(cursorPages(deckFetch(deck, calls)), { pageSize: 50 }, () => {});
    pager.want(20);
    await settle();
    expect(pager.cards.length).toBe(50);
    pager.want(60);
    await settle();
    expect(pager.cards.length).toBe(100);
    expect(pager.done).toBe(false);
    expect(calls.length).toBe(2);
  });

  it('keeps a failure as its state, retries after the backoff, and clears it on success', async () => {
    const clock = manualSchedule();
    const states: string[] = [];
    const pager = new CardPager(cursorPages(deckFetch(deck, [], new Set([1, 2]))),
      { pageSize: 50, schedule: clock.schedule }, () => states.push(pager.error ? `failed#${pager.attempt}` : `ok:${pager.cards.length}`));
    pager.want(10);
    await settle();
    expect(pager.error).not.toBeNull();
    expect(pager.cards).toEqual([]);
    expect(clock.pending()).toBe(1);
    clock.runAll();
    await settle();
    clock.runAll();
    await settle();
    expect(states).toEqual(['failed#1', 'failed#2', 'ok:50']);
    expect(pager.error).toBeNull();
  });

  it('loadUpTo resolves with every card once the pages are done', async () => {
    const pager = new CardPager(cursorPages(deckFetch(deck)), { pageSize: 50 }, () => {});
    expect(ids(await pager.loadUpTo(Number.MAX_SAFE_INTEGER))).toEqual(ids(deck));
    expect(pager.done).toBe(true);
  });

  it('places a card written later where the order puts it, and not past what is loaded', async () => {
    const pager = new CardPager(cursorPages(deckFetch(deck)), { pageSize: 50, order: cardOrder }, () => {});
    pager.want(1);
    await settle();
    pager.upsert(card('new', 'T010x'));
    expect(pager.cards.findIndex((c) => c.id === 'new')).toBe(11);
    pager.upsert(card('late', 'T999'));
    expect(pager.cards.some((c) => c.id === 'late')).toBe(false); // the page that holds it will bring it
    pager.remove('c000');
    expect(pager.cards[0].id).toBe('c001');
  });

  it('a card the feed reports while the first page is read, before it, joins the list when the page lands', async () => {
    // The page query was answered before the write; the feed reports the card before the page arrives.
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => { release = r; });
    const fetch = deckFetch(deck);
    const pager = new CardPager(cursorPages(async (after, n) => { const page = await fetch(after, n); await gate; return page; }),
      { pageSize: 50, order: cardOrder }, () => {});
    pager.want(1);
    await settle();
    pager.upsert(card('new', '!first'));
    pager.upsert(card('later', 'T010x'));
    pager.remove('c003'); // deleted meanwhile: the page read before must not bring it back
    release();
    await settle();
    expect(ids(pager.cards.slice(0, 4))).toEqual(['new', 'c000', 'c001', 'c002']);
    expect(pager.cards.findIndex((c) => c.id === 'later')).toBe(11);
    expect(pager.cards.some((c) => c.id === 'c003')).toBe(false);
  });

  it('a card past what is loaded is placed when a page reaches it, even from cards fetched before it was written', async () => {
    const pager = new CardPager(cursorPages(deckFetch(deck)), { pageSize: 50, order: cardOrder }, () => {});
    pager.want(1);
    await settle();
    pager.upsert(card('late', 'T060x'));
    pager.upsert({ ...deck[70], title: 'T070 edited' });
    expect(pager.cards.some((c) => c.id === 'late')).toBe(false);
    pager.want(60);
    await settle();
    expect(pager.cards.findIndex((c) => c.id === 'late')).toBe(61);
    expect(pager.cards.filter((c) => c.id === deck[70].id).map((c) => c.title)).toEqual(['T070 edited']);
  });
});
