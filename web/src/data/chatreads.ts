// A chat's documents as the rules give them: the owner's list of chats, one
// chat (every reader), its private data (the owner alone) and its author chip.
// Its messages are read in messages.ts, whom it is shared with in chatviewers.ts.
import {
  collection, doc, getDoc, onSnapshot, orderBy, query, where, type FirestoreError, type Unsubscribe,
} from 'firebase/firestore';
import { db } from './db';
import { watchLive, type LiveError } from './livequery';
import { COLLECTIONS } from './names';
import type { ChatDoc, ChatPrivateDoc } from './shapes';
import { toChat, toChatPrivate } from './snapshots';

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

export function watchChats(uid: string, onChats: (c: ChatDoc[]) => void, onError: (e: LiveError) => void): Unsubscribe {
  const q = query(collection(db, COLLECTIONS.chats), where('owner', '==', uid), orderBy('last_updated', 'desc'));
  return watchLive(q, toChat, onChats, onError);
}

export function watchChat(id: string, onChat: (c: ChatDoc | null) => void, onError: (e: FirestoreError) => void): Unsubscribe {
  return onSnapshot(doc(db, COLLECTIONS.chats, id), (s) => onChat(s.exists() ? toChat(s) : null), onError);
}

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
