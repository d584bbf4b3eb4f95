// The Functions handle the callables use (api.ts), wired to the emulator when the app runs on one.
import { connectFunctionsEmulator, getFunctions } from 'firebase/functions';
import { splitHostPort } from './config';
import { app, config } from './firebase';
import { REGION } from './names';

export const functions = getFunctions(app, REGION);

if (config.emulators?.functions) connectFunctionsEmulator(functions, ...splitHostPort(config.emulators.functions));
