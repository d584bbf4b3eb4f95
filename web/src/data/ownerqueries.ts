// The owner's own answer ratings, answers' usage and daily usage: queries exactly
// as firestore.rules allows them (filtered on owner == own uid).
import {
  collection, getDocs, onSnapshot, query, where, type DocumentData, type DocumentSnapshot, type FirestoreError,
  type Unsubscribe,
} from 'firebase/firestore';
import type { AnswerUsageDoc, FeedbackDoc, UsageDayDoc } from './shapes';
import { toAnswerUsage, toFeedback, toUsageDay } from './snapshots';
import { db } from './db';
import { COLLECTIONS } from './names';

/** One document per answer of one of the owner's chats, by message id (the rules want the owner filter). */
function watchByAnswer<T>(
  name: string,
  convert: (d: DocumentSnapshot<DocumentData>) => T,
  uid: string,
  chatId: string,
  onDocs: (byMessage: Map<string, T>) => void,
  onError: (e: FirestoreError) => void,
): Unsubscribe {
  const q = query(collection(db, name), where('owner', '==', uid), where('chat', '==', chatId));
  return onSnapshot(q, (snap) => onDocs(new Map(snap.docs.map((d) => [d.id, convert(d)]))), onError);
}

/** The owner's ratings of one chat's answers. */
export function watchFeedback(
  uid: string,
  chatId: string,
  onFeedback: (byMessage: Map<string, FeedbackDoc>) => void,
  onError: (e: FirestoreError) => void,
): Unsubscribe {
  return watchByAnswer(COLLECTIONS.answer_feedback, toFeedback, uid, chatId, onFeedback, onError);
}

/** What the owner's answers in one chat counted and cost. */
export function watchAnswerUsage(
  uid: string,
  chatId: string,
  onUsage: (byMessage: Map<string, AnswerUsageDoc>) => void,
  onError: (e: FirestoreError) => void,
): Unsubscribe {
  return watchByAnswer(COLLECTIONS.answer_usage, toAnswerUsage, uid, chatId, onUsage, onError);
}

/** The owner's daily usage per model from `since` (YYYY-MM-DD) on: a few small documents, never the messages. */
export async function getUsageDays(uid: string, since: string): Promise<UsageDayDoc[]> {
  const q = query(collection(db, COLLECTIONS.usage_daily), where('owner', '==', uid), where('day', '>=', since));
  const snap = await getDocs(q);
  return snap.docs.map(toUsageDay);
}
