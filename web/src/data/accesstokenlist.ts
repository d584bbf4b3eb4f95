// The user's personal access tokens as Settings lists them: labels and dates,
// never a token or its hash (those are server-only).
import { collection, onSnapshot, query, where, type FirestoreError, type Unsubscribe } from 'firebase/firestore';
import { db } from './db';
import { COLLECTIONS } from './names';
import type { AccessTokenDoc } from './shapes';
import { toAccessToken } from './snapshots';

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
