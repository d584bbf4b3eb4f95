// Whether a signed-in user may start chats: read once they are signed in (session.ts), from a
// chunk of its own, so that the sign-in screen downloads neither Firestore nor Functions.
import { doc, getDoc } from 'firebase/firestore';
import { db } from './db';
import { COLLECTIONS } from './names';
import { timed } from '../app/timing';

/** AI use granted on their profile, or, without the grant, a key of their own (Settings). */
export async function mayUseAi(uid: string): Promise<boolean> {
  const snap = await timed('profile', getDoc(doc(db, COLLECTIONS.users, uid)));
  if (snap.exists() && snap.get('may_use_ai') === true) return true;
  // The callables' chunk (the Functions SDK) loads only for this question.
  const { listApiKeys } = await import('./api');
  return (await timed('listApiKeys', listApiKeys({}))).keys.length > 0;
}
