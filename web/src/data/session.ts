// Who is signed in, and what their users/{uid} document allows.
import {
  EmailAuthProvider, GoogleAuthProvider, onAuthStateChanged, reauthenticateWithCredential, reauthenticateWithPopup,
  signOut, type User,
} from 'firebase/auth';
import { auth, usingEmulators } from './firebase';
import { mark } from '../app/timing';

export interface Session {
  user: User | null;
  /** May start chats: AI use granted, or a key of their own (the server judges per model). */
  mayUseAi: boolean;
  /**
   * mayUseAi is known: the user is published as soon as Firebase knows them
   * (the first screen waits for nothing else) and published again once their
   * profile (and, without the grant, their own keys) said whether they may chat.
   */
  aiChecked: boolean;
  /** false until Firebase has restored (or ruled out) a signed-in user */
  resolved: boolean;
}

let current: Session = { user: null, mayUseAi: false, aiChecked: false, resolved: false };
const listeners = new Set<(s: Session) => void>();

export function session(): Session {
  return current;
}

export function onSession(fn: (s: Session) => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function publish(next: Session): void {
  current = next;
  listeners.forEach((fn) => fn(current));
}

export function startSession(): void {
  onAuthStateChanged(auth, async (user) => {
    mark(user ? 'auth-user' : 'auth-none');
    if (!user) {
      publish({ user: null, mayUseAi: false, aiChecked: true, resolved: true });
      return;
    }
    publish({ user, mayUseAi: false, aiChecked: false, resolved: true });
    let mayUseAi = false;
    try {
      mayUseAi = await (await import('./profile')).mayUseAi(user.uid);
    } catch {
      // Unreadable profile (or its chunk did not arrive): the server stays the judge; the UI just won't offer chat.
    }
    if (auth.currentUser?.uid === user.uid) publish({ user, mayUseAi, aiChecked: true, resolved: true });
  });
}

export function signOutNow(): Promise<void> {
  return signOut(auth);
}

/**
 * Signs the current user in again (their ID token then says they just did): what deleteAccount
 * asks for when the last sign-in is older than a few minutes. Google in production; against the
 * emulators, the password they type.
 */
export async function signInAgain(password: string): Promise<void> {
  const user = auth.currentUser;
  if (!user) throw new Error('Not signed in.');
  if (usingEmulators) {
    await reauthenticateWithCredential(user, EmailAuthProvider.credential(user.email ?? '', password));
  } else {
    await reauthenticateWithPopup(user, new GoogleAuthProvider());
  }
}
