// The owner's switches on a chat: `published`, and `look_further` (its model may search the
// chat's cards while it answers), the only fields of a chat a client writes
// (firestore.rules lets the owner change those two alone, each to a bool).
import { doc, updateDoc } from 'firebase/firestore';
import { db } from './db';
import { COLLECTIONS } from './names';

export function setPublished(chatId: string, published: boolean): Promise<void> {
  return updateDoc(doc(db, COLLECTIONS.chats, chatId), { published });
}

export function setLookFurther(chatId: string, lookFurther: boolean): Promise<void> {
  return updateDoc(doc(db, COLLECTIONS.chats, chatId), { look_further: lookFurther });
}
