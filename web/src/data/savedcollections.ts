// Saved collections (collections/{id}): the owner's standing choice of cards, a
// query or ids, with instructions to the model. The rules hold the shape and
// the limits of common/collections.json (saved_collection_limits), read here
// too, so the form refuses what the rules would.
import {
  addDoc, collection, doc, getDoc, getDocs, onSnapshot, query, serverTimestamp, where,
  type DocumentData, type DocumentSnapshot, type FirestoreError, type Unsubscribe,
} from 'firebase/firestore';
import shared from '../../../common/collections.json';
import type { CollectionQuery } from './api';
import { db } from './firebase';
import { COLLECTIONS } from './names';
import { toChat, type ChatDoc } from './docs';

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

/** The user's collections, by name, live. */
export function watchCollections(uid: string, on: (c: SavedCollection[]) => void, onError: (e: FirestoreError) => void): Unsubscribe {
  const q = query(collection(db, COLLECTIONS.collections), where('owner', '==', uid));
  return onSnapshot(q, (snap) => on(snap.docs.map(toCollection).sort((a, b) => a.name.localeCompare(b.name))), onError);
}

export async function getCollection(id: string): Promise<SavedCollection | null> {
  const s = await getDoc(doc(db, COLLECTIONS.collections, id));
  return s.exists() ? toCollection(s) : null;
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
