// The one place that initialises Firebase; everything else imports the
// handles from here so emulator wiring happens exactly once.
import { initializeApp } from 'firebase/app';
import { connectAuthEmulator, getAuth } from 'firebase/auth';
import { connectFirestoreEmulator, initializeFirestore } from 'firebase/firestore';
import { connectFunctionsEmulator, getFunctions } from 'firebase/functions';
import { authEmulatorUrl, parseConfig, splitHostPort } from './config';
import { REGION } from './names';

export const config = parseConfig(import.meta.env as Record<string, string | undefined>);

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

export const app = initializeApp(config.firebase);
export const auth = getAuth(app);
export const db = initializeFirestore(app, longPollingRequested() ? { experimentalForceLongPolling: true } : {});
export const functions = getFunctions(app, REGION);
export const usingEmulators = config.emulators !== null;

if (config.emulators) {
  const { auth: authHost, firestore, functions: fnHost } = config.emulators;
  if (authHost) connectAuthEmulator(auth, authEmulatorUrl(authHost), { disableWarnings: true });
  if (firestore) connectFirestoreEmulator(db, ...splitHostPort(firestore));
  if (fnHost) connectFunctionsEmulator(functions, ...splitHostPort(fnHost));
}
