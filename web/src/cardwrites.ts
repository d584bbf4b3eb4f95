// The owner's card writes, straight to Firestore under the rules
// (firestore.rules validCard()): create, edit, delete, and an import's
// batched writes. Timestamps are the server's (request.time), as the rules
// demand; the embedCard trigger follows each write. Also the two counts an
// import shows while embeddings catch up.
import {
  collection, deleteDoc, doc, documentId, getCountFromServer, getDocs, query, serverTimestamp, setDoc, updateDoc, where,
  writeBatch,
  type DocumentData, type FieldValue,
} from 'firebase/firestore';
import type { CardDoc } from './cardfilter';
import type { CardFields } from './cardvalidity';
import { db } from './firebase';
import type { PlannedCard } from './importplan';
import { COLLECTIONS } from './names';
import { inPool } from './pool';
import { toCard } from './queries';

const cards = () => collection(db, COLLECTIONS.cards);

function content(f: CardFields): DocumentData {
  return { title: f.title, body: f.body, visibility: f.visibility, viewers: f.viewers, tags: f.tags };
}

function created(owner: string, f: CardFields): Record<string, unknown | FieldValue> {
  return { ...content(f), owner, created: serverTimestamp(), updated: serverTimestamp() };
}

/** A new card with an id of Firestore's choosing; resolves to that id. */
export async function createCard(owner: string, f: CardFields, id?: string): Promise<string> {
  const ref = id ? doc(cards(), id) : doc(cards());
  await setDoc(ref, created(owner, f));
  return ref.id;
}

export function updateCard(id: string, f: CardFields): Promise<void> {
  return updateDoc(doc(cards(), id), { ...content(f), updated: serverTimestamp() });
}

export function deleteCard(id: string): Promise<void> {
  return deleteDoc(doc(cards(), id));
}

// A query's `in` takes at most 30 values; a few queries in flight keep the
// look-up of 5,000 ids to seconds without flooding the connection.
const IN_MAX = 30;
const LOOKUPS_IN_FLIGHT = 8;

/**
 * Of `ids`, the owner's cards, by id: what an import compares against. Only
 * these ids are read, never the whole collection (issue 21), by queries the
 * rules allow (`owner ==` the caller: a missing id, or another owner's card,
 * is simply not in the answer).
 */
export async function ownCardsAmong(owner: string, ids: readonly string[]): Promise<Map<string, CardDoc>> {
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += IN_MAX) chunks.push(ids.slice(i, i + IN_MAX));
  const found = await inPool(chunks, LOOKUPS_IN_FLIGHT, async (chunk) =>
    (await getDocs(query(cards(), where('owner', '==', owner), where(documentId(), 'in', chunk)))).docs.map(toCard));
  return new Map(found.flat().map((c) => [c.id, c]));
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

/** How many of the owner's cards there are, and how many have an embedding (any age). */
export async function embeddingProgress(owner: string): Promise<{ embedded: number; cards: number }> {
  const [all, embedded] = await Promise.all([
    getCountFromServer(query(cards(), where('owner', '==', owner))),
    getCountFromServer(query(collection(db, COLLECTIONS.card_embeddings), where('owner', '==', owner))),
  ]);
  return { embedded: embedded.data().count, cards: all.data().count };
}
