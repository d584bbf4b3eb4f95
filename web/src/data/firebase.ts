// The one place that initialises the Firebase app and Auth; Firestore (db.ts) and Functions
// (functions.ts) are initialised beside it, each in its own module, so that the sign-in screen's
// chunk holds Auth alone and the first module to read or call pulls the others in.
import { initializeApp } from 'firebase/app';
import { connectAuthEmulator, getAuth } from 'firebase/auth';
import { authEmulatorUrl, parseConfig } from './config';

export const config = parseConfig(import.meta.env as Record<string, string | undefined>);

export const app = initializeApp(config.firebase);
export const auth = getAuth(app);
export const usingEmulators = config.emulators !== null;

if (config.emulators?.auth) connectAuthEmulator(auth, authEmulatorUrl(config.emulators.auth), { disableWarnings: true });
