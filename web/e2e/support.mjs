// Shared helpers for the browser end-to-end tests: the browser, signing in,
// and admin reads of the Firestore emulator (REST with the emulator's
// "Bearer owner" token, which bypasses rules, so the tests can know the truth
// the page is being compared against).
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

function required(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the e2e tests under scripts/test (or export the env scripts/dev prints)`);
  return v;
}

export const APP_URL = required('CARDCHAT_APP_URL').replace(/\/$/, '');
export const FIRESTORE = required('FIRESTORE_EMULATOR_HOST');
export const AUTH = required('FIREBASE_AUTH_EMULATOR_HOST');
export const PROJECT = process.env.GCLOUD_PROJECT || 'demo-cardchat';
export const FUNCTIONS = process.env.CARDCHAT_FUNCTIONS_HOST || null;
export const EMAIL = process.env.CARDCHAT_DEMO_EMAIL || 'demo@cardchat.test';
export const PASSWORD = process.env.CARDCHAT_DEMO_PASSWORD || 'cardchat-demo';
export const SHOTS = process.env.CARDCHAT_SCREENSHOTS || null;

const SHARED = JSON.parse(readFileSync(new URL('../../common/collections.json', import.meta.url), 'utf8'));
export const COLLECTIONS = SHARED.collections;
/** The functions' region (the SPA's REGION). */
export const SHARED_REGION = SHARED.region;

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export function launch() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
      // A port offset can land the app on a port Chrome refuses (6000, X11): allow the app's own.
      `--explicitly-allowed-ports=${new URL(APP_URL).port || 80}`],
  });
}

/**
 * A fresh browser context. With `longPolling`, its pages run Firestore over
 * long polling so every response body can be read (captureResponses). Only
 * for chat pages: forced long polling against the emulator stalls at times on
 * the big listen of the cards view (about 1,100 cards), so the cards view runs
 * on the default transport.
 */
export async function newContext(browser, viewport = DESKTOP, { longPolling = false } = {}) {
  const context = await browser.newContext({ viewport });
  if (longPolling) await context.addInitScript(forceLongPolling);
  return context;
}

/** Makes the pages that load after this call use long polling. */
export function forceLongPolling() {
  localStorage.setItem('cardchat:forceLongPolling', '1');
}

/** For page.waitForFunction: the start dialog's model picker has its models (it is disabled until then). */
export function modelPickerReady() {
  const picker = /** @type {HTMLSelectElement | null} */ (document.querySelector('[data-testid=model-picker]'));
  return !picker?.disabled;
}

/** In the open start dialog: waits for the models and picks the offline answerer. */
export async function pickOfflineModel(page) {
  await page.waitForFunction(modelPickerReady, null, { timeout: 30_000 });
  const offline = await page.locator('[data-testid=model-picker] option[data-offline=true]').first().getAttribute('value');
  await page.getByTestId('model-picker').selectOption(offline);
}

/** Records the body of every response a page receives. */
export function captureResponses(page) {
  /** @type {Promise<void>[]} */
  const pending = [];
  /** @type {{ bodies: { url: string, text: string }[], unread: string[], settle: () => Promise<unknown> }} */
  const captured = { bodies: [], unread: [], settle: () => Promise.all(pending) };
  page.on('requestfinished', (request) => {
    pending.push((async () => {
      try {
        const response = await request.response();
        if (!response) return;
        const body = await response.body();
        captured.bodies.push({ url: request.url(), text: body.toString('utf8') });
      } catch {
        captured.unread.push(request.url());
      }
    })());
  });
  return captured;
}

export function pageErrors(page) {
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  return errors;
}

export async function signIn(page, email = EMAIL, password = PASSWORD) {
  await page.goto(`${APP_URL}/`);
  await page.locator('#signin-email').fill(email);
  await page.locator('#signin-password').fill(password);
  await page.getByTestId('signin-submit').click();
  await page.getByTestId('user-email').waitFor({ timeout: 30_000 });
}

export async function screenshot(page, name) {
  if (!SHOTS) return null;
  mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, name);
  await page.screenshot({ path: file });
  return file;
}

// --- Auth and Firestore emulators, as an admin -----------------------------

export async function signInRest(email = EMAIL, password = PASSWORD) {
  const res = await fetch(`http://${AUTH}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=demo-key`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, returnSecureToken: true }),
  });
  if (!res.ok) throw new Error(`auth emulator sign-in failed: ${res.status} ${await res.text()}`);
  const j = await res.json();
  return { uid: j.localId, idToken: j.idToken };
}

function decode(v) {
  if (!v || typeof v !== 'object') return v;
  if ('stringValue' in v) return v.stringValue;
  if ('integerValue' in v) return Number(v.integerValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('booleanValue' in v) return v.booleanValue;
  if ('nullValue' in v) return null;
  if ('timestampValue' in v) return new Date(v.timestampValue);
  if ('bytesValue' in v) return v.bytesValue;
  if ('referenceValue' in v) return v.referenceValue;
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(decode);
  if ('mapValue' in v) return decodeFields(v.mapValue.fields ?? {});
  return v;
}

function decodeFields(fields) {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, decode(v)]));
}

const docsBase = () => `http://${FIRESTORE}/v1/projects/${PROJECT}/databases/(default)/documents`;
const adminHeaders = { Authorization: 'Bearer owner' };

export async function adminGet(docPath) {
  const res = await fetch(`${docsBase()}/${docPath}`, { headers: adminHeaders });
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`GET ${docPath}: ${res.status} ${await res.text()}`);
  const j = await res.json();
  return { id: j.name.split('/').pop(), ...decodeFields(j.fields ?? {}) };
}

export async function adminList(collectionPath) {
  const out = [];
  let pageToken = '';
  do {
    const url = `${docsBase()}/${collectionPath}?pageSize=300${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`;
    const res = await fetch(url, { headers: adminHeaders });
    if (!res.ok) throw new Error(`LIST ${collectionPath}: ${res.status} ${await res.text()}`);
    const j = await res.json();
    for (const d of j.documents ?? []) out.push({ id: d.name.split('/').pop(), ...decodeFields(d.fields ?? {}) });
    pageToken = j.nextPageToken ?? '';
  } while (pageToken);
  return out;
}

/** The same predicate as the rules' cardIsVisible() for a non-admin. */
export function visibleTo(card, uid) {
  return card.visibility === 'public' || card.owner === uid || (card.viewers ?? []).includes(uid);
}

/** Calls a callable the way the SDK does, for comparing the UI with the truth. */
export async function callFunction(name, data, idToken) {
  if (!FUNCTIONS) throw new Error('CARDCHAT_FUNCTIONS_HOST is not set');
  const res = await fetch(`http://${FUNCTIONS}/${PROJECT}/${SHARED.region}/${SHARED.functions[name] ?? name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', Authorization: `Bearer ${idToken}` },
    body: JSON.stringify({ data }),
  });
  const j = await res.json();
  if (!res.ok || j.error) throw new Error(`${name}: ${res.status} ${JSON.stringify(j.error ?? j)}`);
  return j.result;
}

function encode(v) {
  if (v === null) return { nullValue: null };
  if (v instanceof Date) return { timestampValue: v.toISOString() };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(encode) } };
  if (typeof v === 'boolean') return { booleanValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { integerValue: String(v) } : { doubleValue: v };
  if (typeof v === 'object') return { mapValue: { fields: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encode(x)])) } };
  return { stringValue: String(v) };
}

export async function adminSet(docPath, data) {
  const fields = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, encode(v)]));
  const res = await fetch(`${docsBase()}/${docPath}`, {
    method: 'PATCH', headers: { ...adminHeaders, 'content-type': 'application/json' }, body: JSON.stringify({ fields }),
  });
  if (!res.ok) throw new Error(`PATCH ${docPath}: ${res.status} ${await res.text()}`);
}

/** Sets only the fields of `data`, leaving the document's others as they are (adminSet replaces it whole). */
export async function adminUpdate(docPath, data) {
  const fields = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, encode(v)]));
  const mask = Object.keys(data).map((k) => `updateMask.fieldPaths=${encodeURIComponent(k)}`).join('&');
  const res = await fetch(`${docsBase()}/${docPath}?${mask}`, {
    method: 'PATCH', headers: { ...adminHeaders, 'content-type': 'application/json' }, body: JSON.stringify({ fields }),
  });
  if (!res.ok) throw new Error(`PATCH ${docPath}: ${res.status} ${await res.text()}`);
}

export async function adminDelete(docPath) {
  const res = await fetch(`${docsBase()}/${docPath}`, { method: 'DELETE', headers: adminHeaders });
  if (!res.ok && res.status !== 404) throw new Error(`DELETE ${docPath}: ${res.status} ${await res.text()}`);
}

/**
 * Polls `check` (every `every` ms) until it answers something truthy, and
 * returns that; fails naming `what` after `timeout` ms. For what the server
 * does in its own time (a trigger, a client write reaching Firestore), which
 * on a loaded emulator can take many seconds.
 */
export async function until(what, check, timeout = 120_000, every = 500) {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeout / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

// --- big collections: users, batched writes, paused triggers ----------------

/** An Auth emulator account (created, or signed in when it exists): { uid, idToken }. */
export async function ensureUser(email, password) {
  const res = await fetch(`http://${AUTH}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-key`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, returnSecureToken: true }),
  });
  if (res.ok) {
    const j = await res.json();
    return { uid: j.localId, idToken: j.idToken };
  }
  return signInRest(email, password);
}

/**
 * Writes (or with `data` null, deletes) documents in batched commits as an
 * admin (the emulator's owner token, past the rules): 500 writes a commit,
 * `inFlight` commits at a time.
 */
export async function adminWriteMany(entries, { inFlight = 4 } = {}) {
  const root = `projects/${PROJECT}/databases/(default)/documents`;
  const batches = [];
  for (let i = 0; i < entries.length; i += 500) batches.push(entries.slice(i, i + 500));
  const commit = async (batch) => {
    const writes = batch.map(([docPath, data]) => (data === null
      ? { delete: `${root}/${docPath}` }
      : { update: { name: `${root}/${docPath}`, fields: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, encode(v)])) } }));
    const res = await fetch(`http://${FIRESTORE}/v1/${root}:commit`, {
      method: 'POST', headers: { ...adminHeaders, 'content-type': 'application/json' }, body: JSON.stringify({ writes }),
    });
    if (!res.ok) throw new Error(`commit of ${batch.length} writes: ${res.status} ${await res.text()}`);
  };
  let next = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < batches.length) await commit(batches[next++]);
  }));
}

const HUB = process.env.FIREBASE_EMULATOR_HUB || `127.0.0.1:${4400 + Number(process.env.CARDCHAT_PORT_OFFSET || 0)}`;

/**
 * Pauses the Functions emulator's background triggers around `work` (seeding
 * thousands of cards would fire embedCard for each), resumes them, and returns
 * only once the paused writes' events are gone. Pausing does not stop the
 * Firestore emulator from sending an event per write: the Functions emulator
 * drops them one by one after resuming, and a trigger fired meanwhile waits
 * behind them (10,000 cards written while paused: 17 s idle, their deletes
 * 32 s, minutes on a loaded machine: a chat's answer never started in CI).
 */
export async function withTriggersPaused(work) {
  const hub = (what) => fetch(`http://${HUB}/functions/${what}BackgroundTriggers`, { method: 'PUT' })
    .then((r) => r.ok, () => false);
  if (!(await hub('disable'))) throw new Error(`could not pause the emulator's triggers at ${HUB}`);
  let resumed;
  let result;
  try {
    result = await work();
  } finally {
    resumed = await hub('enable');
  }
  if (!resumed) throw new Error(`could not resume the emulator's triggers at ${HUB}`);
  await triggersCaughtUp();
  return result;
}

const PROBE = { email: 'trigger-probe@cardchat.test', password: 'trigger-probe-1' };

/**
 * Waits until a card written now has been embedded: events reach the
 * Functions emulator in the order of their writes, so by then every earlier
 * one has been handled, and the triggers are known to be live again.
 */
async function triggersCaughtUp(timeoutMs = 600_000) {
  const { uid } = await ensureUser(PROBE.email, PROBE.password);
  const id = `trigger-probe-${Date.now()}`;
  const at = new Date();
  await adminSet(`${COLLECTIONS.cards}/${id}`, {
    title: 'Trigger probe', body: `Written at ${at.toISOString()} to see the emulator's triggers caught up.`,
    owner: uid, visibility: 'private', viewers: [], tags: [], created: at, updated: at,
  });
  await until(`the embedding of probe card ${id}, written after the emulator's triggers resumed`,
    () => adminGet(`${COLLECTIONS.card_embeddings}/${id}`), timeoutMs, 250);
  await adminDelete(`${COLLECTIONS.cards}/${id}`);
}

/**
 * Rebuilds `uid`'s retrieval index once, as an operator would
 * (`python -m cardchat reindex`): cards seeded with the triggers paused have
 * none, and a first search or chat would build it inside its own call.
 */
export function reindexOwner(uid) {
  const functionsDir = fileURLToPath(new URL('../../functions/', import.meta.url));
  const python = path.join(functionsDir, 'venv', 'bin', 'python');
  return new Promise((resolve, reject) => {
    execFile(python, ['-m', 'cardchat', 'reindex', '--owner', uid, '--project', PROJECT], { cwd: functionsDir, env: process.env },
      (err, stdout, stderr) => (err ? reject(new Error(`reindex of ${uid} failed: ${stderr || err.message}`)) : resolve(stdout)));
  });
}
