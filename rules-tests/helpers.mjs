// Shared set-up for the rules tests: the emulator environment, the actors of
// the security matrix, seeding that bypasses the rules, and fixtures shaped
// like functions/cardchat/schema/documents.py.
//
// Not a test file itself (node --test only picks up *.test.mjs here).

import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initializeTestEnvironment } from '@firebase/rules-unit-testing';
import {
  Bytes, Timestamp, collection, doc, getDoc, getDocs, onSnapshot, setLogLevel, writeBatch,
} from 'firebase/firestore';

// Denials are the point of half the tests: keep the SDK from logging each one.
setLogLevel('silent');

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const shared = JSON.parse(readFileSync(resolve(REPO, 'common/collections.json'), 'utf8'));
/** Collection names, from common/collections.json. */
export const C = shared.collections;
/** What a valid card may hold, from common/collections.json (firestore.rules' validCard()). */
export const CARD_LIMITS = shared.card_limits;
/** Which ids are in which uid's namespace (firestore.rules inOwnNamespace()), from common/card_id_cases.json. */
export const CARD_ID_CASES = JSON.parse(readFileSync(resolve(REPO, 'common/card_id_cases.json'), 'utf8')).cases;

/** The rules under test: CARDCHAT_RULES_FILE (run.mjs swaps in permissive.rules). */
export function rulesPath() {
  const file = process.env.CARDCHAT_RULES_FILE || 'firestore.rules';
  return isAbsolute(file) ? file : resolve(REPO, file);
}

/** uids of the matrix's actors. */
export const UID = {
  owner: 'alice',
  other: 'bob',
  admin: 'ada',
  viewer: 'vic', // listed in a private card's `viewers`
  notAdmin: 'mallory', // users doc says admin: false, token claims admin
  chatViewer: 'val', // a chat's owner shared it with them (chat_viewers/{chat}_{uid})
  exViewer: 'xena', // shared with once, removed since
};

/** The matrix's columns: client key in setUp().db → label in test names. */
export const ACTORS = { owner: 'owner', other: 'other user', signedOut: 'signed-out visitor', admin: 'admin' };

/** Where the document shapes are defined (schema/documents.py and the modules beside it). */
const SCHEMA_MODULES = ['schema/documents.py', 'schema/messages.py', 'schema/accounts.py', 'schema/chat_sources.py', 'schema/saved_collections.py'];

/**
 * Field names of a dataclass in schema/documents.py (or a module beside it), so fixtures cannot silently fall
 * behind the schema (every Chat field gets its own "owner may not change it"
 * test).
 */
export function schemaFields(className) {
  const source = SCHEMA_MODULES.map((m) => readFileSync(resolve(REPO, 'functions/cardchat', m), 'utf8')).join('\n')
    .replace(/"""[\s\S]*?"""/g, '');
  const start = source.search(new RegExp(`^class ${className}\\b`, 'm'));
  if (start < 0) throw new Error(`no schema module has a class ${className}`);
  const rest = source.slice(start).split('\n').slice(1);
  const fields = [];
  for (const line of rest) {
    if (/^\S/.test(line)) break; // next top-level statement ends the class
    const m = /^ {4}(\w+)\s*:/.exec(line);
    if (m) fields.push(m[1]);
  }
  return fields;
}

function checkShape(className, data) {
  const expected = schemaFields(className).sort();
  const actual = Object.keys(data).sort();
  if (JSON.stringify(expected) !== JSON.stringify(actual)) {
    throw new Error(`fixture for ${className} has fields ${actual} but schema/documents.py has ${expected}`);
  }
  return data;
}

const T0 = Timestamp.fromDate(new Date('2026-01-01T00:00:00Z'));

export function chatDoc(over = {}) {
  return checkShape('Chat', {
    owner: UID.owner,
    title: 'What do my notes say about tides?',
    model: 'claude-test',
    public_citations: { 2: 'card-b' },
    published: false,
    created: T0,
    last_updated: T0,
    message_count: 2,
    look_further: false,
    ...over,
  });
}

/** chat_viewers/{chat}_{viewer}: `viewer` may read `chat` (shareChat writes one per person). */
export function viewerDoc(chat, viewer, over = {}) {
  return checkShape('ChatViewer', { chat, owner: UID.owner, viewer, added: T0, ...over });
}

/** The id shareChat gives a viewer doc (ids.chat_viewer_id): the rules look it up by this shape. */
export const viewerId = (chat, viewer) => `${chat}_${viewer}`;

/** chat_private/{id}: what only the chat's owner (and admins) may read. */
export function chatPrivateDoc(over = {}) {
  return checkShape('ChatPrivate', {
    owner: UID.owner,
    background_length: 20000,
    background_tokens: 12345,
    card_ids: ['card-a', 'card-b'],
    card_count_requested: 3,
    card_owners: [UID.owner, UID.owner],
    collection: { description: 'ocean notes', configuration: { tag: 'ocean' } },
    cards_unranked: 1,
    branched_from: { chat: 'chat-earlier', message_index: 0 },
    continued_from: null,
    cards_considered: 3,
    cards_packed: 2,
    cards_cut: 1,
    context_turns: [{ message_index: 3, considered: 3, added: [{ card: 'card-b', n: 2, rank: 1, score: 0.5 }], cut: 0, dropped: [] }],
    // What a chat made from a query was made from (owner-only like the rest)
    collection_query: { scope: 'mine', tag: 'ocean', text: 'spring tides' },
    // how many of the cards are other people's: the owner's publish control says so, no one else learns it
    cards_by_others: 1,
    // a chat made from a saved collection: its id (owner-only like the rest)
    collection_id: 'col-1',
    // how many of its cards were edited since the chat was made: a count derived from the hidden background
    cards_changed: 3,
    // the owner's pins and exclusions: which cards are (or never are) behind the chat, owner-only like the rest
    pinned_cards: ['card-a'],
    excluded_cards: ['card-c'],
    ...over,
  });
}

export function messageDoc(chat, over = {}) {
  return checkShape('ChatMessage', {
    chat,
    message_index: 0,
    role: 'assistant',
    content: 'The tides follow the moon [1].',
    status: 'complete',
    timestamp: T0,
    model: 'claude-test',
    run_id: 'run-1',
    lease_expires: null,
    attempts: 1,
    usage: { output_tokens: 10 }, // the prompt's counts and the cost are the owner's (answer_usage)
    timings: { ttft: 0.5, total: 2.5 },
    error: null,
    dropped_turns: 0,
    cut_off: null,
    provider_wait: null,
    uncited_claims: 0,
    sources: [1],
    coverage: 'covered',
    citation_checks: [{ sentence: 0, n: 1, verdict: 'supported' }],
    own_key: false,
    redrives: 0,
    ...over,
  });
}

export function chunkDoc(chat, over = {}) {
  return checkShape('StreamChunk', {
    chat,
    message: 'msg-1',
    message_index: 1,
    index: 0,
    content: 'The tides',
    timestamp: T0,
    ...over,
  });
}

export function cardDoc(over = {}) {
  return checkShape('Card', {
    title: 'Tides',
    body: 'The moon pulls the sea.',
    owner: UID.owner,
    visibility: 'private',
    viewers: [],
    tags: ['ocean'],
    created: T0,
    updated: T0,
    ...over,
  });
}

export function backgroundDoc(chat, over = {}) {
  return checkShape('ChatBackground', {
    chat, owner: UID.owner, model: 'claude-test', tokens: 12345, parts: 1, created: T0,
    card_updated: { 'card-a': 1767225600000000 }, changed_cards: ['card-a'], ...over,
  });
}

/** chat_authors/{id}: the name on a chat's author chip. */
export function authorDoc(over = {}) {
  return checkShape('ChatAuthor', { owner: UID.owner, name: 'Alice Author', shown: false, ...over });
}

export function userDoc(over = {}) {
  return checkShape('UserDoc', { may_use_ai: false, admin: false, ...over });
}

export function embeddingDoc(over = {}) {
  return checkShape('CardEmbedding', {
    model: 'all-MiniLM-L6-v2',
    dim: 4,
    vector: Bytes.fromUint8Array(new Uint8Array(new Float32Array([0.1, 0.2, 0.3, 0.4]).buffer)),
    text_hash: 'abc123',
    updated: T0,
    owner: UID.owner,
    ...over,
  });
}

export function rateLimitDoc(over = {}) {
  return checkShape('RateLimit', { recent: [T0], day: '2026-01-01', day_tokens: 1234, reservations: [], ...over });
}

/** answer_feedback/{message id}: the owner's rating of an answer. */
export function feedbackDoc(over = {}) {
  return checkShape('AnswerFeedback', {
    owner: UID.owner, chat: 'chat-1', message: 'msg-1', rating: 'down', comment: 'missed the second card',
    model: 'claude-test', created: T0, updated: T0, ...over,
  });
}

/** answer_usage/{message id}: what one answer's prompt counted, and its cost: the owner's alone. */
export function answerUsageDoc(over = {}) {
  return checkShape('AnswerUsage', {
    owner: UID.owner, chat: 'chat-1', cost_usd: 0.0045, card_searches: 2,
    usage: { input_tokens: 1000, output_tokens: 10, cached_input_tokens: 0, cache_write_tokens: 0 }, ...over,
  });
}

/** usage_daily/{owner}_{day}_{model}: an owner's figures for one day and model. */
export function usageDayDoc(over = {}) {
  return checkShape('UsageDay', {
    owner: UID.owner, day: '2026-01-01', model: 'claude-test', answers: 3, input_tokens: 3000, output_tokens: 300,
    cost_usd: 0.0135, ...over,
  });
}

/** A chat_messages document builder, or a chat_messages_streaming one. */
export const MESSAGE_KINDS = [
  { name: C.chat_messages, build: messageDoc, changes: { content: 'edited', status: 'failed' } },
  { name: C.chat_messages_streaming, build: chunkDoc, changes: { content: 'edited', index: 7 } },
];

/**
 * Documents to seed before a file's tests run, registered while the tests
 * are defined: each write test gets its own document, so a write that the
 * permissive rules let through cannot disturb another test, and seeding is
 * one batch instead of one round trip per test.
 */
export function fixtures() {
  const docs = {};
  let n = 0;
  const newId = (prefix = 'w') => { n += 1; return `${prefix}-${n}`; };
  return {
    docs,
    newId,
    /** Registers `data` at `coll/<new id>`; returns the id. */
    add(coll, data, prefix) {
      const id = newId(prefix);
      docs[`${coll}/${id}`] = data;
      return id;
    },
  };
}

/**
 * A fresh emulator project with the rules under test, the users documents
 * that make `ada` an admin, `docs` ({ 'path/to/doc': data }) seeded, and the
 * actors' Firestore clients.
 */
export async function setUp(projectId, docs = {}) {
  const [host, port] = (process.env.FIRESTORE_EMULATOR_HOST || '').split(':');
  if (!host || !port) throw new Error('set FIRESTORE_EMULATOR_HOST=host:port');
  const env = await initializeTestEnvironment({
    // run.mjs runs the permissive check alongside the real suite: a suffix
    // keeps their emulator projects (and rules) apart.
    projectId: projectId + (process.env.CARDCHAT_RULES_PROJECT_SUFFIX || ''),
    firestore: { rules: readFileSync(rulesPath(), 'utf8'), host, port: Number(port) },
  });
  await env.clearFirestore();
  const db = {
    owner: env.authenticatedContext(UID.owner).firestore(),
    other: env.authenticatedContext(UID.other).firestore(),
    signedOut: env.unauthenticatedContext().firestore(),
    admin: env.authenticatedContext(UID.admin).firestore(),
    viewer: env.authenticatedContext(UID.viewer).firestore(),
    notAdmin: env.authenticatedContext(UID.notAdmin, { admin: true }).firestore(),
    chatViewer: env.authenticatedContext(UID.chatViewer).firestore(),
    exViewer: env.authenticatedContext(UID.exViewer).firestore(),
  };
  const h = {
    env,
    db,
    /** Writes documents with the rules off: { 'path/to/doc': data }. */
    async seed(toWrite) {
      await env.withSecurityRulesDisabled(async (ctx) => {
        const s = ctx.firestore();
        const entries = Object.entries(toWrite);
        for (let i = 0; i < entries.length; i += 400) { // a batch holds 500 writes at most
          const batch = writeBatch(s);
          for (const [p, d] of entries.slice(i, i + 400)) batch.set(doc(s, p), d);
          await batch.commit();
        }
      });
    },
    /** Reads a document with the rules off (undefined if missing). */
    async peek(path) {
      let data;
      await env.withSecurityRulesDisabled(async (ctx) => {
        const snap = await getDoc(doc(ctx.firestore(), path));
        data = snap.exists() ? snap.data() : undefined;
      });
      return data;
    },
    async tearDown() {
      await env.cleanup();
    },
  };
  await h.seed({
    [`${C.users}/${UID.admin}`]: userDoc({ admin: true, may_use_ai: true }),
    [`${C.users}/${UID.notAdmin}`]: userDoc({ admin: false }),
    ...docs,
  });
  return h;
}

/** getDoc that must succeed and find nothing (a not-found, not a denial). */
export async function expectMissing(ref) {
  const snap = await getDoc(ref);
  if (snap.exists()) throw new Error(`${ref.path} unexpectedly exists`);
}

/** getDoc that must succeed and find the document. */
export async function expectFound(ref) {
  const snap = await getDoc(ref);
  if (!snap.exists()) throw new Error(`${ref.path} was not found`);
  return snap;
}

/** getDocs that must succeed; returns the sorted ids it found. */
export async function listIds(q) {
  const snap = await getDocs(q);
  return snap.docs.map((d) => d.id).sort();
}

/**
 * A listener kept open while `change()` runs after its first snapshot:
 * resolves with the next snapshot, or rejects with the listener's error (what
 * the SPA's onSnapshot sees when access is revoked under it).
 */
export function snapshotAfter(q, change) {
  let stop = () => {};
  const outcome = new Promise((resolveSnap, reject) => {
    let first = true;
    stop = onSnapshot(q, (snap) => {
      if (!first) { resolveSnap(snap); return; }
      first = false;
      change().catch(reject);
    }, reject);
  });
  return outcome.finally(() => stop());
}

/** The first snapshot of a listener, or its error: what the SPA's onSnapshot sees. */
export function firstSnapshot(q) {
  return new Promise((resolveSnap, reject) => {
    const stop = onSnapshot(q, (snap) => { stop(); resolveSnap(snap); }, reject);
  });
}

export { collection, doc };
