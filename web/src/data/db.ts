// The Firestore handle every read and write uses, wired to the emulator when the app runs on one.
import { connectFirestoreEmulator, initializeFirestore } from 'firebase/firestore';
import { splitHostPort } from './config';
import { app, config } from './firebase';

// Long polling makes every Firestore response a finished HTTP body, which the
// end-to-end test needs to prove the hidden background never arrives. The
// localStorage switch lets a test opt in without a special build.
function longPollingRequested(): boolean {
  try {
    return config.forceLongPolling || localStorage.getItem('cardchat:forceLongPolling') === '1';
  } catch {
    return config.forceLongPolling;
  }
}

export const db = initializeFirestore(app, longPollingRequested() ? { experimentalForceLongPolling: true } : {});

if (config.emulators?.firestore) connectFirestoreEmulator(db, ...splitHostPort(config.emulators.firestore));
