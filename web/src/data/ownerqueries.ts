// The owner's own answer ratings and daily usage (issue 16): queries exactly
// as firestore.rules allows them (filtered on owner == own uid).
import {
  collection, getDocs, onSnapshot, query, where, type FirestoreError, type Unsubscribe,
} from 'firebase/firestore';
import { db } from './firebase';
import { COLLECTIONS } from './names';

export type Rating = 'up' | 'down';

export interface FeedbackDoc {
  message: string;
  rating: Rating;
  comment: string;
}

/** The owner's ratings of one chat's answers (the rules want the owner filter). */
export function watchFeedback(
  uid: string,
  chatId: string,
  onFeedback: (byMessage: Map<string, FeedbackDoc>) => void,
  onError: (e: FirestoreError) => void,
): Unsubscribe {
  const q = query(collection(db, COLLECTIONS.answer_feedback), where('owner', '==', uid), where('chat', '==', chatId));
  return onSnapshot(q, (snap) => onFeedback(new Map(snap.docs.map((d) => {
    const f = d.data();
    return [d.id, { message: d.id, rating: f.rating === 'up' ? 'up' : 'down', comment: String(f.comment ?? '') }];
  }))), onError);
}

export interface UsageDayDoc {
  day: string;
  model: string;
  answers: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

/** The owner's daily usage per model from `since` (YYYY-MM-DD) on: a few small documents, never the messages. */
export async function getUsageDays(uid: string, since: string): Promise<UsageDayDoc[]> {
  const q = query(collection(db, COLLECTIONS.usage_daily), where('owner', '==', uid), where('day', '>=', since));
  const snap = await getDocs(q);
  return snap.docs.map((d) => {
    const u = d.data();
    return {
      day: String(u.day ?? ''), model: String(u.model ?? ''), answers: Number(u.answers ?? 0),
      input_tokens: Number(u.input_tokens ?? 0), output_tokens: Number(u.output_tokens ?? 0), cost_usd: Number(u.cost_usd ?? 0),
    };
  });
}
