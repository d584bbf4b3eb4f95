// The cards view's Firestore reads (issue 21): paged queries with cursors,
// aggregation counts and a live feed of what changes after the page loaded.
// Every query is one firestore.rules allows (owner == uid, viewers
// array-contains uid, visibility == 'public', each optionally with
// tags array-contains tag): rules-tests/cards-paging.test.mjs runs each shape.
import {
  collection, doc, documentId, getCountFromServer, getDocFromServer, getDocsFromServer, limit, orderBy, query,
  startAfter, where, type FirestoreError, type Query, type QueryConstraint, type Unsubscribe,
} from 'firebase/firestore';
import type { CardDoc, CardScope } from './cardfilter';
import { cursorSource, filteredSource, idSource, mergedSource, type CardSource, type PageFetch } from './cardpager';
import { errorCode } from './errors';
import { OFFLINE, watchLive } from './livequery';
import { db } from './firebase';
import { COLLECTIONS } from './names';
import { toCard } from './queries';
import { mark, timed } from './timing';

const cards = () => collection(db, COLLECTIONS.cards);

/** The three queries the rules allow a reader, narrowed to a tag where Firestore can. */
function baseQueries(uid: string, tag: string | null): Record<CardScope, Query> {
  const tagged: QueryConstraint[] = tag ? [where('tags', 'array-contains', tag)] : [];
  return {
    yours: query(cards(), where('owner', '==', uid), ...tagged),
    // A second array-contains is not allowed in one query: the tag is filtered here (scopeSource).
    shared: query(cards(), where('viewers', 'array-contains', uid)),
    public: query(cards(), where('visibility', '==', 'public'), ...tagged),
  };
}

/**
 * Pages of `base` in the cards' order (title, then id): each page starts
 * after the last card of the one before. From the server only: a cached
 * empty answer while offline would look like "no cards".
 */
function pageFetch(base: Query, name: string): PageFetch {
  return async (after, n) => {
    const order = [orderBy('title'), orderBy(documentId())];
    const from = after ? [startAfter(after.title, after.id)] : [];
    const snap = await timed(`page-${name}`, getDocsFromServer(query(base, ...order, ...from, limit(n))));
    return snap.docs.map(toCard);
  };
}

/** The reader's cards for a scope (null: all they may see) and tag, in title order. */
export function scopeSource(uid: string, scope: CardScope | null, tag: string | null): CardSource {
  const q = baseQueries(uid, tag);
  const sources: Record<CardScope, () => CardSource> = {
    yours: () => cursorSource(pageFetch(q.yours, 'yours')),
    shared: () => filteredSource(cursorSource(pageFetch(q.shared, 'shared')), (c) => c.owner !== uid && (!tag || c.tags.includes(tag))),
    // The reader's own public cards come through "yours".
    public: () => filteredSource(cursorSource(pageFetch(q.public, 'public')), (c) => c.owner !== uid),
  };
  return scope ? sources[scope]() : mergedSource([sources.yours(), sources.shared(), sources.public()]);
}

/** Exactly these cards, in this order; one the reader may not see (or that is gone) is left out. */
export function idListSource(ids: readonly string[]): CardSource {
  return idSource(ids, (slice) => Promise.all(slice.map(async (id) => {
    try {
      const s = await getDocFromServer(doc(db, COLLECTIONS.cards, id));
      return s.exists() ? toCard(s) : null;
    } catch (e) {
      if (errorCode(e) === 'permission-denied') return null; // the rules deny a missing card too
      throw e;
    }
  })));
}

/** The stored cards of `ids`, in that order (the readable ones). */
export async function readCards(ids: string[]): Promise<CardDoc[]> {
  const source = idListSource(ids);
  const out: CardDoc[] = [];
  for (;;) {
    const page = await source.next(ids.length);
    out.push(...page.cards);
    if (page.done) return out;
  }
}

async function count(q: Query, name: string): Promise<number> {
  return (await timed(`count-${name}`, getCountFromServer(q))).data().count;
}

/**
 * How many cards a scope and tag hold, by aggregation queries (no card is
 * read). null when no query can count it: shared cards with a tag (the tag
 * is filtered in the browser).
 */
export async function countCards(uid: string, scope: CardScope | null, tag: string | null): Promise<number | null> {
  const q = baseQueries(uid, tag);
  const counts: Record<CardScope, () => Promise<number | null>> = {
    yours: () => count(q.yours, 'yours'),
    shared: () => (tag ? Promise.resolve(null) : count(q.shared, 'shared')),
    public: () => count(query(q.public, where('owner', '!=', uid)), 'public'),
  };
  if (scope) return counts[scope]();
  const all = await Promise.all(Object.values(counts).map((c) => c()));
  return all.some((n) => n === null) ? null : (all as number[]).reduce((a, b) => a + b, 0);
}

export type CardChange = { type: 'upsert'; card: CardDoc } | { type: 'remove'; id: string };

/**
 * Cards written after `since` among those the reader may see, live: the
 * list places them (or takes them out) without reloading its pages. Each
 * scope's listener is restarted after a failure (watchLive): a feed that
 * stopped for good would leave new cards out without a word.
 */
export function watchCardChanges(
  uid: string,
  since: Date,
  onChanges: (changes: CardChange[]) => void,
  onError: (e: FirestoreError | typeof OFFLINE) => void,
): Unsubscribe {
  const q = baseQueries(uid, null);
  const unsubs = Object.entries(q).map(([name, base]) => {
    let known = new Set<string>();
    let answered = false;
    return watchLive(query(base, where('updated', '>', since)), toCard, (found) => {
      if (!answered) mark(`live-${name}`);
      answered = true;
      const now = new Set(found.map((c) => c.id));
      const gone = [...known].filter((id) => !now.has(id)).map((id): CardChange => ({ type: 'remove', id }));
      known = now;
      const changes = [...found.map((card): CardChange => ({ type: 'upsert', card })), ...gone];
      if (changes.length) onChanges(changes);
    }, onError);
  });
  return () => unsubs.forEach((u) => u());
}
