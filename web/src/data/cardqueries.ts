// The cards view's Firestore reads: paged queries with cursors,
// aggregation counts and a live feed of what changes after the page loaded,
// each for one source of cards: the reader's own, others' shared with them,
// or one owner's public cards; and the reader's choice of sources
// (card_sources). Every query is one firestore.rules allows (owner == uid,
// viewers array-contains uid, owner == X and visibility == 'public', each
// optionally with tags array-contains tag; viewers array-contains uid and owner
// in the accepted sharers): rules-tests/cards-paging.test.mjs runs each shape.
// No list query reaches cards of anyone the reader did not choose; only
// `pendingSharers` looks past the accepted, one card per person.
import {
  collection, doc, documentId, getCountFromServer, getDocFromServer, getDocsFromServer, limit, onSnapshot, orderBy, query,
  serverTimestamp, setDoc, startAfter, where, type FirestoreError, type Query, type QueryConstraint, type Unsubscribe,
} from 'firebase/firestore';
import type { CardScope } from '../cards/cardfilter';
import { cursorPages, filteredPages, idPages, type CardPages, type PageFetch } from './cardpager';
import { parseSources, sourcesProblem } from '../cards/cardsources';
import { errorCode } from '../app/errors';
import { OFFLINE, watchLive } from './livequery';
import { db } from './db';
import { COLLECTIONS } from './names';
import { mark, timed } from '../app/timing';
import type { CardDoc, CardSources } from './shapes';
import { toCard } from './snapshots';

const cards = () => collection(db, COLLECTIONS.cards);

/** Whose cards a list shows: a scope, the owner of an 'owner' scope, the sharers whose cards a 'shared' one takes. */
export interface ScopeSpec {
  scope: CardScope;
  owner: string | null;
  acceptedSharers: readonly string[];
}

/** The query the rules allow for `spec`, narrowed to a tag where Firestore can; null: an owner scope naming nobody. */
function scopeQuery(uid: string, spec: ScopeSpec, tag: string | null): Query | null {
  const tagged: QueryConstraint[] = tag ? [where('tags', 'array-contains', tag)] : [];
  switch (spec.scope) {
    case 'mine': return query(cards(), where('owner', '==', uid), ...tagged);
    // A second array-contains is not allowed in one query: the tag is filtered here (scopePages).
    // Only the accepted people's cards (at most 30: one `in`): a stranger's shared cards are not paged through.
    case 'shared': return spec.acceptedSharers.length
      ? query(cards(), where('viewers', 'array-contains', uid), where('owner', 'in', [...spec.acceptedSharers]))
      : null;
    case 'owner': return spec.owner ? query(cards(), where('owner', '==', spec.owner), where('visibility', '==', 'public'), ...tagged) : null;
  }
}

/** What of the shared query's answer the 'shared' scope keeps: others' cards, from an accepted sharer, with the tag. */
function keepShared(uid: string, spec: ScopeSpec, tag: string | null): (c: CardDoc) => boolean {
  return (c) => c.owner !== uid && spec.acceptedSharers.includes(c.owner) && (!tag || c.tags.includes(tag));
}

const EMPTY: CardPages = { async next() { return { cards: [], done: true }; } };

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

/** The reader's cards of `spec` and tag, in title order. */
export function scopePages(uid: string, spec: ScopeSpec, tag: string | null): CardPages {
  const q = scopeQuery(uid, spec, tag);
  if (!q) return EMPTY;
  const pages = cursorPages(pageFetch(q, spec.scope));
  return spec.scope === 'shared' ? filteredPages(pages, keepShared(uid, spec, tag)) : pages;
}

/** Exactly these cards, in this order; one the reader may not see (or that is gone) is left out. */
export function idListPages(ids: readonly string[]): CardPages {
  return idPages(ids, (slice) => Promise.all(slice.map(async (id) => {
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
  const pages = idListPages(ids);
  const out: CardDoc[] = [];
  for (;;) {
    const page = await pages.next(ids.length);
    out.push(...page.cards);
    if (page.done) return out;
  }
}

async function count(q: Query, name: string): Promise<number> {
  return (await timed(`count-${name}`, getCountFromServer(q))).data().count;
}

/**
 * How many cards `spec` and tag hold, by an aggregation query (no card is
 * read). null when no query can count it: shared cards with a tag (filtered
 * in the browser).
 */
export async function countCards(uid: string, spec: ScopeSpec, tag: string | null): Promise<number | null> {
  const q = scopeQuery(uid, spec, tag);
  if (!q) return 0;
  if (spec.scope === 'shared' && tag) return null;
  return count(q, spec.scope);
}

export type CardChange = { type: 'upsert'; card: CardDoc } | { type: 'remove'; id: string };

/**
 * Cards of `spec` written after `since`, live: the list places them (or
 * takes them out) without reloading its pages. The listener is restarted
 * after a failure (watchLive): a feed that stopped for good would leave new
 * cards out without a word.
 */
export function watchCardChanges(
  uid: string,
  spec: ScopeSpec,
  since: Date,
  onChanges: (changes: CardChange[]) => void,
  onError: (e: FirestoreError | typeof OFFLINE) => void,
): Unsubscribe {
  const base = scopeQuery(uid, spec, null);
  if (!base) return () => {};
  let known = new Set<string>();
  let answered = false;
  return watchLive(query(base, where('updated', '>', since)), toCard, (found) => {
    if (!answered) mark(`live-${spec.scope}`);
    answered = true;
    const now = new Set(found.map((c) => c.id));
    const gone = [...known].filter((id) => !now.has(id)).map((id): CardChange => ({ type: 'remove', id }));
    known = now;
    const changes = [...found.map((card): CardChange => ({ type: 'upsert', card })), ...gone];
    if (changes.length) onChanges(changes);
  }, onError);
}

/**
 * Up to `most` people who share cards with the reader, each found by one query of one card (ordered by
 * owner, starting after the last one found): however many cards one person shares, they cost one read.
 */
export async function sharersOf(uid: string, most: number): Promise<string[]> {
  const found: string[] = [];
  while (found.length < most) {
    const after = found.length ? [startAfter(found[found.length - 1])] : [];
    const q = query(cards(), where('viewers', 'array-contains', uid), orderBy('owner'), ...after, limit(1));
    const owner = (await getDocsFromServer(q)).docs[0]?.get('owner');
    if (typeof owner !== 'string') return found;
    found.push(owner);
  }
  return found;
}

const sourcesDoc = (uid: string) => doc(db, COLLECTIONS.card_sources, uid);

/** The reader's chosen sources, live (none chosen yet: a missing document). */
export function watchCardSources(uid: string, onSources: (s: CardSources) => void, onError: (e: FirestoreError) => void): Unsubscribe {
  return onSnapshot(sourcesDoc(uid), (snap) => onSources(parseSources(snap.data())), onError);
}

/** The reader's sources, from the server. */
export async function readCardSources(uid: string): Promise<CardSources> {
  return parseSources((await getDocFromServer(sourcesDoc(uid))).data());
}

/** Reads the reader's sources from the server, changes them with `change` and stores them. */
export async function updateCardSources(uid: string, change: (s: CardSources) => CardSources): Promise<CardSources> {
  const next = change(await readCardSources(uid));
  await saveCardSources(uid, next);
  return next;
}

/** Stores the reader's sources whole; a shape the rules would refuse is refused here first, by name. */
export async function saveCardSources(uid: string, s: CardSources): Promise<void> {
  const data = { owner: uid, following: s.following, hidden_sharers: s.hidden_sharers, accepted_sharers: s.accepted_sharers };
  const bad = sourcesProblem(data, uid);
  if (bad) throw new Error(`Your card sources cannot be saved: ${bad} is not valid.`);
  await setDoc(sourcesDoc(uid), { ...data, updated: serverTimestamp() });
}
