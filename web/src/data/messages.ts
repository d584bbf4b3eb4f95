// A chat's messages and an answer's streaming chunks, read by whoever may read
// the chat (firestore.rules mayReadChat).
import {
  collection, onSnapshot, orderBy, query, where, type FirestoreError, type Unsubscribe,
} from 'firebase/firestore';
import { db } from './db';
import { watchLive, type LiveError } from './livequery';
import { COLLECTIONS } from './names';
import type { MessageDoc } from './shapes';
import { toMessage } from './snapshots';

export interface ChunkChange {
  type: 'added' | 'modified' | 'removed';
  index: number;
  content: string;
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
