// The owner's own answer ratings, answers' usage and daily usage: queries exactly
// as firestore.rules allows them (filtered on owner == own uid).
import {
  collection, getDocs, onSnapshot, query, where, type FirestoreError, type Unsubscribe,
} from 'firebase/firestore';
import {
  toAnswerUsage, toFeedback, toUsageDay, type AnswerUsageDoc, type FeedbackDoc, type UsageDayDoc,
} from './docs';
import { db } from './firebase';
import { COLLECTIONS } from './names';

/** The owner's ratings of one chat's answers (the rules want the owner filter). */
export function watchFeedback(
  uid: string,
  chatId: string,
  onFeedback: (byMessage: Map<string, FeedbackDoc>) => void,
  onError: (e: FirestoreError) => void,
): Unsubscribe {
  const q = query(collection(db, COLLECTIONS.answer_feedback), where('owner', '==', uid), where('chat', '==', chatId));
  return onSnapshot(q, (snap) => onFeedback(new Map(snap.docs.map((d) => [d.id, toFeedback(d)]))), onError);
}

/** What the owner's answers in one chat counted and cost (the rules want the owner filter). */
export function watchAnswerUsage(
  uid: string,
  chatId: string,
  onUsage: (byMessage: Map<string, AnswerUsageDoc>) => void,
  onError: (e: FirestoreError) => void,
): Unsubscribe {
  const q = query(collection(db, COLLECTIONS.answer_usage), where('owner', '==', uid), where('chat', '==', chatId));
  return onSnapshot(q, (snap) => onUsage(new Map(snap.docs.map((d) => [d.id, toAnswerUsage(d)]))), onError);
}

/** The owner's daily usage per model from `since` (YYYY-MM-DD) on: a few small documents, never the messages. */
export async function getUsageDays(uid: string, since: string): Promise<UsageDayDoc[]> {
  const q = query(collection(db, COLLECTIONS.usage_daily), where('owner', '==', uid), where('day', '>=', since));
  const snap = await getDocs(q);
  return snap.docs.map(toUsageDay);
}
