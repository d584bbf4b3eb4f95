// Firestore reads (and the one client write) behind typed functions. The
// queries are exactly the ones firestore.rules allows.
import {
  collection, doc, getDoc, onSnapshot, orderBy, query, updateDoc, where,
  type DocumentData, type DocumentSnapshot, type FirestoreError, type Unsubscribe,
} from 'firebase/firestore';
import type { CardDoc } from './cardfilter';
import { db } from './firebase';
import type { Status } from './messagestate';
import { COLLECTIONS } from './names';

/** chats/{id}: what every reader of the chat may see. */
export interface ChatDoc {
  id: string;
  owner: string;
  title: string;
  model: string;
  created: Date | null;
  last_updated: Date | null;
  published: boolean;
  /** Citation number → id, for public cards only: the links a visitor gets. */
  public_citations: Record<string, string>;
  message_count: number;
}

/** chat_private/{id}: the owner's data about a chat; the rules give it to no one else. */
export interface ChatPrivateDoc {
  background_length: number;
  background_tokens: number;
  /** Citation order: [n] is card_ids[n-1]; "" for a card withdrawn since (access lost). */
  card_ids: string[];
  card_count_requested: number;
  cards_unranked: number;
  collection: { description: string; configuration: Record<string, unknown> };
  /** Set on a branch: the chat and question it re-asks. */
  branched_from: { chat: string; message_index: number } | null;
}

export interface MessageDoc {
  id: string;
  chat: string;
  message_index: number;
  role: 'user' | 'assistant';
  content: string;
  status: Status;
  timestamp: Date | null;
  model: string | null;
  lease_expires: Date | null;
  error: string | null;
  dropped_turns: number;
  /** Why a complete answer stops early ("time_limit"), or null. */
  cut_off: string | null;
  /** Set while the server waits to ask a busy model again. */
  provider_wait: ProviderWait | null;
  /** Runs that have claimed this answer so far. */
  attempts: number;
}

export interface ProviderWait {
  reason: string;
  call: number;
}

export interface ChunkChange {
  type: 'added' | 'modified' | 'removed';
  index: number;
  content: string;
}

function toDate(v: unknown): Date | null {
  if (v && typeof (v as { toDate?: unknown }).toDate === 'function') return (v as { toDate(): Date }).toDate();
  return v instanceof Date ? v : null;
}

export function toCard(s: DocumentSnapshot<DocumentData>): CardDoc {
  const d = s.data() ?? {};
  return {
    id: s.id,
    title: String(d.title ?? ''),
    body: String(d.body ?? ''),
    owner: String(d.owner ?? ''),
    visibility: d.visibility === 'public' ? 'public' : 'private',
    viewers: Array.isArray(d.viewers) ? d.viewers : [],
    tags: Array.isArray(d.tags) ? d.tags : [],
    updated: toDate(d.updated)?.getTime() ?? 0,
  };
}

export function toChat(s: DocumentSnapshot<DocumentData>): ChatDoc {
  const d = s.data() ?? {};
  const citations: Record<string, string> = {};
  for (const [n, id] of Object.entries(d.public_citations ?? {})) {
    if (typeof id === 'string') citations[n] = id;
  }
  return {
    id: s.id,
    owner: String(d.owner ?? ''),
    title: String(d.title ?? ''),
    model: String(d.model ?? ''),
    created: toDate(d.created),
    last_updated: toDate(d.last_updated),
    published: d.published === true,
    public_citations: citations,
    message_count: Number(d.message_count ?? 0),
  };
}

export function toChatPrivate(s: DocumentSnapshot<DocumentData>): ChatPrivateDoc {
  const d = s.data() ?? {};
  return {
    background_length: Number(d.background_length ?? 0),
    background_tokens: Number(d.background_tokens ?? 0),
    card_ids: Array.isArray(d.card_ids) ? d.card_ids.map((c: unknown) => (typeof c === 'string' ? c : '')) : [],
    card_count_requested: Number(d.card_count_requested ?? 0),
    cards_unranked: Number(d.cards_unranked ?? 0),
    collection: {
      description: String(d.collection?.description ?? ''),
      configuration: d.collection?.configuration ?? {},
    },
    branched_from: d.branched_from?.chat
      ? { chat: String(d.branched_from.chat), message_index: Number(d.branched_from.message_index ?? 0) }
      : null,
  };
}

function toMessage(s: DocumentSnapshot<DocumentData>): MessageDoc {
  const d = s.data() ?? {};
  return {
    id: s.id,
    chat: String(d.chat ?? ''),
    message_index: Number(d.message_index ?? 0),
    role: d.role === 'user' ? 'user' : 'assistant',
    content: String(d.content ?? ''),
    status: (d.status ?? 'ready') as Status,
    timestamp: toDate(d.timestamp),
    model: d.model ?? null,
    lease_expires: toDate(d.lease_expires),
    error: d.error ? String(d.error) : null,
    dropped_turns: Number(d.dropped_turns ?? 0),
    cut_off: d.cut_off ? String(d.cut_off) : null,
    provider_wait: d.provider_wait?.reason
      ? { reason: String(d.provider_wait.reason), call: Number(d.provider_wait.call ?? 2) }
      : null,
    attempts: Number(d.attempts ?? 0),
  };
}

/** The three card queries the rules allow, merged by the caller. */
export function watchCards(
  uid: string,
  onLists: (lists: CardDoc[][]) => void,
  onError: (e: FirestoreError) => void,
): Unsubscribe {
  const cards = collection(db, COLLECTIONS.cards);
  const queries = [
    query(cards, where('visibility', '==', 'public')),
    query(cards, where('owner', '==', uid)),
    query(cards, where('viewers', 'array-contains', uid)),
  ];
  const lists: Array<CardDoc[] | null> = queries.map(() => null);
  const unsubs = queries.map((q, i) =>
    onSnapshot(
      q,
      (snap) => {
        lists[i] = snap.docs.map(toCard);
        // Render once every query has answered, so the count never jumps.
        if (lists.every((l) => l !== null)) onLists(lists as CardDoc[][]);
      },
      onError,
    ),
  );
  return () => unsubs.forEach((u) => u());
}

export async function getCard(id: string): Promise<CardDoc | null> {
  const s = await getDoc(doc(db, COLLECTIONS.cards, id));
  return s.exists() ? toCard(s) : null;
}

/** The owner's data about their chat (the rules deny everyone else: only call it for your own chat). */
export async function getChatPrivate(id: string): Promise<ChatPrivateDoc | null> {
  const s = await getDoc(doc(db, COLLECTIONS.chat_private, id));
  return s.exists() ? toChatPrivate(s) : null;
}

export function watchChatPrivate(
  id: string,
  onPrivate: (p: ChatPrivateDoc | null) => void,
  onError: (e: FirestoreError) => void,
): Unsubscribe {
  return onSnapshot(doc(db, COLLECTIONS.chat_private, id), (s) => onPrivate(s.exists() ? toChatPrivate(s) : null), onError);
}

export function watchChats(uid: string, onChats: (c: ChatDoc[]) => void, onError: (e: FirestoreError) => void): Unsubscribe {
  const q = query(collection(db, COLLECTIONS.chats), where('owner', '==', uid), orderBy('last_updated', 'desc'));
  return onSnapshot(q, (snap) => onChats(snap.docs.map(toChat)), onError);
}

export function watchChat(id: string, onChat: (c: ChatDoc | null) => void, onError: (e: FirestoreError) => void): Unsubscribe {
  return onSnapshot(doc(db, COLLECTIONS.chats, id), (s) => onChat(s.exists() ? toChat(s) : null), onError);
}

export function watchMessages(chatId: string, onMessages: (m: MessageDoc[]) => void, onError: (e: FirestoreError) => void): Unsubscribe {
  const q = query(collection(db, COLLECTIONS.chat_messages), where('chat', '==', chatId), orderBy('message_index'));
  return onSnapshot(q, (snap) => onMessages(snap.docs.map(toMessage)), onError);
}

export function watchChunks(
  chatId: string,
  messageId: string,
  onChanges: (changes: ChunkChange[]) => void,
  onError: (e: FirestoreError) => void,
): Unsubscribe {
  const q = query(
    collection(db, COLLECTIONS.chat_messages_streaming),
    where('chat', '==', chatId),
    where('message', '==', messageId),
    orderBy('index'),
  );
  return onSnapshot(
    q,
    (snap) =>
      onChanges(
        snap.docChanges().map((c) => ({
          type: c.type,
          index: Number(c.doc.get('index') ?? 0),
          content: String(c.doc.get('content') ?? ''),
        })),
      ),
    onError,
  );
}

/** The only write a client makes. */
export function setPublished(chatId: string, published: boolean): Promise<void> {
  return updateDoc(doc(db, COLLECTIONS.chats, chatId), { published });
}
