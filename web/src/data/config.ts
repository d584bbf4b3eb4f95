// Build-time configuration (Vite env), parsed by pure functions so that a
// malformed variable fails loudly with its name rather than as a blank page.

export interface FirebaseWebConfig {
  projectId: string;
  apiKey: string;
  authDomain?: string;
  [key: string]: unknown;
}

export interface EmulatorHosts {
  auth?: string; // URL, e.g. http://127.0.0.1:9099
  firestore?: string; // host:port
  functions?: string; // host:port
}

export interface AppConfig {
  firebase: FirebaseWebConfig;
  emulators: EmulatorHosts | null;
  forceLongPolling: boolean;
}

const DEFAULT_FIREBASE: FirebaseWebConfig = {
  projectId: 'demo-cardchat',
  apiKey: 'demo-key',
  authDomain: 'demo-cardchat.firebaseapp.com',
};

function parseJson(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw new Error(`${name} is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
}

export function parseConfig(env: Record<string, string | undefined>): AppConfig {
  const rawFirebase = env.VITE_FIREBASE_CONFIG?.trim();
  const firebase = rawFirebase
    ? (parseJson('VITE_FIREBASE_CONFIG', rawFirebase) as FirebaseWebConfig)
    : DEFAULT_FIREBASE;
  if (!firebase || typeof firebase.projectId !== 'string' || !firebase.projectId) {
    throw new Error('VITE_FIREBASE_CONFIG needs a projectId');
  }
  const rawEmu = env.VITE_EMULATORS?.trim();
  const emulators = rawEmu ? (parseJson('VITE_EMULATORS', rawEmu) as EmulatorHosts) : null;
  const lp = env.VITE_FORCE_LONG_POLLING?.trim();
  return { firebase, emulators, forceLongPolling: lp === '1' || lp === 'true' };
}

/** "127.0.0.1:8080" → ["127.0.0.1", 8080]; also accepts a URL. */
export function splitHostPort(value: string): [string, number] {
  const stripped = value.replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
  const i = stripped.lastIndexOf(':');
  if (i <= 0) throw new Error(`emulator address "${value}" needs host:port`);
  const port = Number(stripped.slice(i + 1));
  if (!Number.isInteger(port) || port <= 0) throw new Error(`emulator address "${value}" has a bad port`);
  return [stripped.slice(0, i), port];
}

/** The auth emulator wants a URL; accept host:port too. */
export function authEmulatorUrl(value: string): string {
  return /^https?:\/\//.test(value) ? value : `http://${value}`;
}

/**
 * The card MCP endpoint's URL (the `mcp` HTTP function), or another HTTP
 * function's by `name` (syncCards): the Functions emulator's when the app runs
 * against emulators, the deployed one otherwise.
 */
export function mcpUrl(config: AppConfig, region: string, name = 'mcp'): string {
  const project = config.firebase.projectId;
  const fn = config.emulators?.functions;
  if (fn) return `http://${splitHostPort(fn).join(':')}/${project}/${region}/${name}`;
  return `https://${region}-${project}.cloudfunctions.net/${name}`;
}
