// The owner's card writes, straight to Firestore under the rules
// (firestore.rules validCard()): create, edit, delete, and an import's
// batched writes. Timestamps are the server's (request.time), as the rules
// demand; the embedCard trigger follows each write. Also the counts an
// import (and the Cards page) shows while embeddings catch up.
import {
  collection, deleteDoc, doc, documentId, getCountFromServer, getDoc, getDocs, limit, onSnapshot, orderBy, query, serverTimestamp, setDoc,
  updateDoc, where, writeBatch, type DocumentData, type FieldValue, type FirestoreError, type Unsubscribe,
} from 'firebase/firestore';
import { ownCardId } from '../cards/cardids';
import type { CardFields } from '../cards/cardvalidity';
import { db } from './db';
import { idRanges, type PlannedCard } from '../importexport/importplan';
import { COLLECTIONS } from './names';
import { inPool } from '../app/pool';
import type { CardDoc, DerivedFrom } from './shapes';
import { toCard } from './snapshots';

const cards = () => collection(db, COLLECTIONS.cards);

function content(f: CardFields): DocumentData {
  return { title: f.title, body: f.body, visibility: f.visibility, viewers: f.viewers, tags: f.tags };
}

function created(owner: string, f: CardFields): Record<string, unknown | FieldValue> {
  return { ...content(f), owner, created: serverTimestamp(), updated: serverTimestamp() };
}

/**
 * A new card, under `id` or a random id in the owner's namespace; resolves to that id.
 * `derivedFrom`: the answer it is saved from, kept with the card from then on.
 */
export async function createCard(owner: string, f: CardFields, id?: string, derivedFrom?: DerivedFrom | null): Promise<string> {
  const ref = doc(cards(), id ?? ownCardId(owner, doc(cards()).id));
  await setDoc(ref, derivedFrom ? { ...created(owner, f), derived_from: { ...derivedFrom } } : created(owner, f));
  return ref.id;
}

export function updateCard(id: string, f: CardFields): Promise<void> {
  return updateDoc(doc(cards(), id), { ...content(f), updated: serverTimestamp() });
}

export function deleteCard(id: string): Promise<void> {
  return deleteDoc(doc(cards(), id));
}

// Ids per look-up range, look-ups in flight, and gets in flight where a
// range is crowded with other cards of the owner's.
const IDS_PER_RANGE = 100;
const RANGES_IN_FLIGHT = 8;
const GETS_IN_FLIGHT = 24;

/**
 * Of `ids`, the owner's cards, by id: what an import compares against. Never
 * the whole collection (it may be huge): an owner with no card (a first import) is
 * told by one count; else the ids go in ranges of ≤ 100 (importplan.idRanges), and each
 * range of the owner's card ids (owner == uid, documentId() between its
 * first and last id) is read, up to twice the ids asked in it. A new
 * folder's ranges come back empty. The owner filter is what lets the rules
 * prove these queries, and it leaves out another owner's card of an id asked
 * for. A range crowded with the owner's other cards falls back to one get
 * per id, denied for a missing card (firestore.rules: a guessed id learns
 * nothing): the reason `documentId() in` cannot serve here, since the rules
 * evaluate it per id and deny the whole query for a missing one.
 */
export async function ownCardsAmong(owner: string, ids: readonly string[]): Promise<Map<string, CardDoc>> {
  const mine = query(cards(), where('owner', '==', owner));
  if (!ids.length || (await getCountFromServer(mine)).data().count === 0) return new Map();
  const found = await inPool(idRanges(ids, IDS_PER_RANGE), RANGES_IN_FLIGHT, async (range) => {
    const most = 2 * range.length;
    const within = query(mine, where(documentId(), '>=', range[0]), where(documentId(), '<=', range[range.length - 1]),
      orderBy(documentId()), limit(most + 1));
    const got = (await getDocs(within)).docs;
    if (got.length <= most) return got.map((d) => toCard(d));
    return (await inPool(range, GETS_IN_FLIGHT, ownCard)).filter((c): c is CardDoc => c !== null);
  });
  const asked = new Set(ids);
  return new Map(found.flat().filter((c) => asked.has(c.id) && c.owner === owner).map((c) => [c.id, c]));
}

async function ownCard(id: string): Promise<CardDoc | null> {
  try {
    const snap = await getDoc(doc(cards(), id));
    return snap.exists() ? toCard(snap) : null;
  } catch (err) {
    if ((err as { code?: string }).code === 'permission-denied') return null; // missing, or not the owner's
    throw err;
  }
}

// A batch holds 500 writes and a request 10 MiB (the emulator's: 4 MiB): stay
// under both, as the CLI does (repo/card_writes.py).
const BATCH_WRITES = 450;
const BATCH_BYTES = 3_000_000;

/** Splits writes into batches under both limits (a card's size ≈ its text's bytes). */
export function batches(items: readonly PlannedCard[]): PlannedCard[][] {
  const out: PlannedCard[][] = [];
  let current: PlannedCard[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = new TextEncoder().encode(item.fields.body + item.fields.title).length + 2048;
    if (current.length && (current.length >= BATCH_WRITES || bytes + size > BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}

// Batches committed at once: the emulator gains little past a few, and a
// failure stops the rest sooner.
const BATCHES_IN_FLIGHT = 3;

/**
 * Writes an import plan's creates and updates in batches, a few at a time;
 * `onProgress(written)` after each commit. An update keeps the card's
 * `created`: update rewrites only the content and `updated`.
 */
export async function writeImport(
  owner: string,
  creates: readonly PlannedCard[],
  updates: readonly PlannedCard[],
  onProgress: (written: number) => void,
): Promise<void> {
  const isUpdate = new Set(updates.map((u) => u.id));
  let written = 0;
  await inPool(batches([...creates, ...updates]), BATCHES_IN_FLIGHT, async (group) => {
    const batch = writeBatch(db);
    for (const item of group) {
      const ref = doc(cards(), item.id);
      if (isUpdate.has(item.id)) batch.update(ref, { ...content(item.fields), updated: serverTimestamp() });
      else batch.set(ref, created(owner, item.fields));
    }
    await batch.commit();
    written += group.length;
    onProgress(written);
  });
}

/**
 * How many of the owner's cards there are, and how many have a current vector. The server's
 * `embedding_progress/{uid}` says how many wait in its queue (an edit burst: stale vectors);
 * the count of vectors covers cards whose trigger has not queued them yet (an import just written);
 * `skipped`: cards kept but not embedded, over the owner's card quota (embedding_skips).
 */
export async function embeddingProgress(owner: string): Promise<{ embedded: number; cards: number; skipped: number }> {
  const [all, embedded, progress, skipped] = await Promise.all([
    getCountFromServer(query(cards(), where('owner', '==', owner))),
    getCountFromServer(query(collection(db, COLLECTIONS.card_embeddings), where('owner', '==', owner))),
    getDoc(doc(db, COLLECTIONS.embedding_progress, owner)),
    getCountFromServer(query(collection(db, COLLECTIONS.embedding_skips), where('owner', '==', owner))),
  ]);
  const n = all.data().count;
  const pending = Number(progress.data()?.pending ?? 0);
  return { embedded: Math.max(0, Math.min(embedded.data().count, n - pending)), cards: n, skipped: skipped.data().count };
}

/** Calls `onChange` whenever the server rewrites the owner's embedding_progress (after every batch it embeds). */
export function watchEmbeddingProgress(owner: string, onChange: () => void, onError: (e: FirestoreError) => void): Unsubscribe {
  return onSnapshot(doc(db, COLLECTIONS.embedding_progress, owner), () => onChange(), onError);
}
