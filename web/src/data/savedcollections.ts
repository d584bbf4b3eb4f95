// Saved collections (collections/{id}): the owner's standing choice of cards, a
// query or ids, with instructions to the model. The rules hold the shape and
// the limits of common/collections.json (saved_collection_limits), read here
// too, so the form refuses what the rules would.
import {
  addDoc, collection, deleteDoc, doc, getDoc, getDocs, onSnapshot, query, serverTimestamp, updateDoc, where,
  type DocumentData, type DocumentSnapshot, type FirestoreError, type Unsubscribe,
} from 'firebase/firestore';
import shared from '../../../common/collections.json';
import type { CollectionQuery } from './api';
import { db } from './db';
import { COLLECTIONS } from './names';
import type { ChatDoc } from './shapes';
import { toChat } from './snapshots';

export const LIMITS = shared.saved_collection_limits;

export interface SavedCollection {
  id: string;
  owner: string;
  name: string;
  instructions: string;
  query: CollectionQuery | null;
  card_ids: string[] | null;
  updated: Date | null;
}

export interface NewCollection {
  name: string;
  instructions: string;
  query: CollectionQuery | null;
  cardIds: readonly string[] | null;
}

/** Why the rules would refuse `c` ('' when they would not). */
export function collectionProblem(c: NewCollection): string {
  if (!c.name.trim()) return 'Give the collection a name.';
  if (c.name.length > LIMITS.name_max_chars) return `A name has at most ${LIMITS.name_max_chars} characters.`;
  if (c.instructions.length > LIMITS.instructions_max_chars) {
    return `Instructions have at most ${LIMITS.instructions_max_chars.toLocaleString('en-US')} characters.`;
  }
  if (!c.query && !c.cardIds?.length) return 'The collection holds no cards.';
  if (c.cardIds && c.cardIds.length > LIMITS.card_ids_max) return `A collection lists at most ${LIMITS.card_ids_max} cards.`;
  if ((c.query?.tag?.length ?? 0) > LIMITS.tag_max_chars) return `A tag has at most ${LIMITS.tag_max_chars} characters.`;
  if ((c.query?.text?.length ?? 0) > LIMITS.text_max_chars) return `A search text has at most ${LIMITS.text_max_chars} characters.`;
  return '';
}

function toCollection(s: DocumentSnapshot<DocumentData>): SavedCollection {
  const d = s.data() ?? {};
  return {
    id: s.id,
    owner: String(d.owner ?? ''),
    name: String(d.name ?? ''),
    instructions: String(d.instructions ?? ''),
    query: d.query && typeof d.query === 'object' ? d.query as CollectionQuery : null,
    card_ids: Array.isArray(d.card_ids) ? d.card_ids.map(String) : null,
    updated: d.updated?.toDate?.() ?? null,
  };
}

/** Saves a new collection of `uid`'s; resolves to its id. */
export async function saveCollection(uid: string, c: NewCollection): Promise<string> {
  const source = c.query ? { query: c.query } : { card_ids: [...(c.cardIds ?? [])] };
  const ref = await addDoc(collection(db, COLLECTIONS.collections), {
    owner: uid, name: c.name.trim(), instructions: c.instructions.trim(), ...source,
    created: serverTimestamp(), updated: serverTimestamp(),
  });
  return ref.id;
}

/** Replaces a collection's name, instructions and query or ids (the rules keep its owner and `created`). */
export async function updateCollection(id: string, c: NewCollection): Promise<void> {
  const source = c.query ? { query: c.query } : { card_ids: [...(c.cardIds ?? [])] };
  await updateDoc(doc(db, COLLECTIONS.collections, id), {
    name: c.name.trim(), instructions: c.instructions.trim(), ...source, updated: serverTimestamp(),
  });
  existence.delete(id);
}

/** Deletes a collection; the chats made from it stay (their header says it is gone). */
export async function deleteCollection(id: string): Promise<void> {
  await deleteDoc(doc(db, COLLECTIONS.collections, id));
  existence.set(id, Promise.resolve(false));
}

const existence = new Map<string, Promise<boolean>>();

/**
 * Whether the owner's collection `id` still exists, asked once per page load
 * (a chat's header asks on every render). A deleted one reads as denied, not
 * missing: the rules' owner check has no document to look at. Any other
 * failure (offline) keeps it: a live link beats a false "deleted".
 */
export function collectionExists(id: string): Promise<boolean> {
  let known = existence.get(id);
  if (!known) {
    known = getDoc(doc(db, COLLECTIONS.collections, id))
      .then((s) => s.exists(), (e: FirestoreError) => e.code !== 'permission-denied');
    existence.set(id, known);
  }
  return known;
}

/** One collection, live; `on(null)` once it is gone (deleted, or never the reader's). */
export function watchCollection(id: string, on: (c: SavedCollection | null) => void, onError: (e: FirestoreError) => void): Unsubscribe {
  return onSnapshot(doc(db, COLLECTIONS.collections, id), (s) => on(s.exists() ? toCollection(s) : null),
    (e) => (e.code === 'permission-denied' ? on(null) : onError(e)));
}

/** The user's collections, by name, live. */
export function watchCollections(uid: string, on: (c: SavedCollection[]) => void, onError: (e: FirestoreError) => void): Unsubscribe {
  const q = query(collection(db, COLLECTIONS.collections), where('owner', '==', uid));
  return onSnapshot(q, (snap) => on(snap.docs.map(toCollection).sort((a, b) => a.name.localeCompare(b.name))), onError);
}

/** The ids of the user's chats made from collection `id` (their chat_private names it). */
export async function chatsOfCollection(uid: string, id: string): Promise<string[]> {
  const q = query(collection(db, COLLECTIONS.chat_private), where('owner', '==', uid), where('collection_id', '==', id));
  return (await getDocs(q)).docs.map((d) => d.id);
}

/** A chat of the user's own (one a collection's chats name). */
export async function getChat(id: string): Promise<ChatDoc | null> {
  const s = await getDoc(doc(db, COLLECTIONS.chats, id));
  return s.exists() ? toChat(s) : null;
}
