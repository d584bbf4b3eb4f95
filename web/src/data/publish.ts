// Publishing a chat: its `published` flag, the only field of a chat a client
// writes (firestore.rules lets the owner change that one field alone).
import { doc, updateDoc } from 'firebase/firestore';
import { db } from './db';
import { COLLECTIONS } from './names';

export function setPublished(chatId: string, published: boolean): Promise<void> {
  return updateDoc(doc(db, COLLECTIONS.chats, chatId), { published });
}
