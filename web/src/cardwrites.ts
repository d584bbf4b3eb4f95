// The owner's card writes, straight to Firestore under the rules
// (firestore.rules validCard()): create, edit, delete, and an import's
// batched writes. Timestamps are the server's (request.time), as the rules
// demand; the embedCard trigger follows each write. Also the counts an
// import (and the Cards page) shows while embeddings catch up.
import {
  collection, deleteDoc, doc, getCountFromServer, getDoc, query, serverTimestamp, setDoc, updateDoc, where, writeBatch,
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

// Gets in flight at once: enough to hide the round trips, few enough not to
// flood the connection.
const LOOKUPS_IN_FLIGHT = 24;

/**
 * Of `ids`, the owner's cards, by id: what an import compares against. Only
 * these ids are read, never the whole collection (issue 21). One get each:
 * a query on `documentId() in` is evaluated per document by the rules, and a
 * missing card is denied (firestore.rules: a guessed id learns nothing), so
 * a denial here means "not a card of yours", as does another owner's card.
 */
export async function ownCardsAmong(owner: string, ids: readonly string[]): Promise<Map<string, CardDoc>> {
  const found = await inPool(ids, LOOKUPS_IN_FLIGHT, async (id) => {
    try {
      const snap = await getDoc(doc(cards(), id));
      return snap.exists() ? toCard(snap) : null;
    } catch (err) {
      if ((err as { code?: string }).code === 'permission-denied') return null;
      throw err;
    }
  });
  return new Map(found.filter((c): c is CardDoc => c !== null && c.owner === owner).map((c) => [c.id, c]));
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
 * the count of vectors covers cards whose trigger has not queued them yet (an import just written).
 */
export async function embeddingProgress(owner: string): Promise<{ embedded: number; cards: number }> {
  const [all, embedded, progress] = await Promise.all([
    getCountFromServer(query(cards(), where('owner', '==', owner))),
    getCountFromServer(query(collection(db, COLLECTIONS.card_embeddings), where('owner', '==', owner))),
    getDoc(doc(db, COLLECTIONS.embedding_progress, owner)),
  ]);
  const n = all.data().count;
  const pending = Number(progress.data()?.pending ?? 0);
  return { embedded: Math.max(0, Math.min(embedded.data().count, n - pending)), cards: n };
}
