// Firestore reads (and the one client write) behind typed functions. The
// queries are exactly the ones firestore.rules allows.
import {
  collection, doc, getDoc, onSnapshot, orderBy, query, updateDoc, where,
  type DocumentData, type FirestoreError, type Unsubscribe,
} from 'firebase/firestore';
import type { AccessTokenDoc, CardDoc, ChatDoc, ChatPrivateDoc, MessageDoc } from './shapes';
import { toAccessToken, toCard, toChat, toChatPrivate, toMessage } from './snapshots';
import { db } from './firebase';
import { watchLive, type OFFLINE } from './livequery';
import { COLLECTIONS } from './names';

export interface ChunkChange {
  type: 'added' | 'modified' | 'removed';
  index: number;
  content: string;
}

export async function getCard(id: string): Promise<CardDoc | null> {
  const s = await getDoc(doc(db, COLLECTIONS.cards, id));
  return s.exists() ? toCard(s) : null;
}

/**
 * The owner's card's skip record (kept but not embedded, over a card quota), or null. Its id is in
 * the owner's namespace (`{uid}:{cardId}`, functions/cardchat/embeddings/card_quota.skip_id): the rules let
 * a user get their own, missing ones included, and nobody another's.
 */
export async function getCardSkip(owner: string, id: string): Promise<DocumentData | null> {
  const s = await getDoc(doc(db, COLLECTIONS.embedding_skips, `${owner}:${id}`));
  return s.exists() ? s.data() : null;
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

/** Failures include the SDK answering from its cache because it cannot reach the server (livequery.ts); both are retried. */
export type LiveError = FirestoreError | typeof OFFLINE;

export function watchChats(uid: string, onChats: (c: ChatDoc[]) => void, onError: (e: LiveError) => void): Unsubscribe {
  const q = query(collection(db, COLLECTIONS.chats), where('owner', '==', uid), orderBy('last_updated', 'desc'));
  return watchLive(q, toChat, onChats, onError);
}

export function watchChat(id: string, onChat: (c: ChatDoc | null) => void, onError: (e: FirestoreError) => void): Unsubscribe {
  return onSnapshot(doc(db, COLLECTIONS.chats, id), (s) => onChat(s.exists() ? toChat(s) : null), onError);
}

export function watchMessages(chatId: string, onMessages: (m: MessageDoc[]) => void, onError: (e: LiveError) => void): Unsubscribe {
  const q = query(collection(db, COLLECTIONS.chat_messages), where('chat', '==', chatId), orderBy('message_index'));
  return watchLive(q, toMessage, onMessages, onError);
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

/** The user's tokens, newest first (sorted here: the rules allow the owner filter alone). */
export function watchAccessTokens(
  uid: string,
  onTokens: (t: AccessTokenDoc[]) => void,
  onError: (e: FirestoreError) => void,
): Unsubscribe {
  const q = query(collection(db, COLLECTIONS.access_tokens), where('owner', '==', uid));
  return onSnapshot(q, (snap) => {
    const tokens = snap.docs.map(toAccessToken);
    onTokens(tokens.sort((a, b) => (b.created?.getTime() ?? 0) - (a.created?.getTime() ?? 0)));
  }, onError);
}

// --- chats shared with people (whom: chatviewers.ts) ------------------------

/**
 * The name on a chat's author chip, or null when the reader may not see it
 * (a visitor while the owner keeps it hidden) or no one shared the chat yet.
 */
export async function getChatAuthor(chatId: string): Promise<string | null> {
  try {
    const s = await getDoc(doc(db, COLLECTIONS.chat_authors, chatId));
    return s.exists() ? String(s.get('name') ?? '') || null : null;
  } catch {
    return null; // denied: the chip stays off
  }
}
