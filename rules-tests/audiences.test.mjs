// Every collection against common/audiences.json: rules are per document, so a
// reader below the highest audience of any field a document holds must be
// denied it. Each collection's document is seeded in its most open state (a
// published chat shared with a viewer and showing its author, a public card
// with a viewer, every declared field present) and read by every reader kind
// below that audience; the reader at the collection's audience gets it, so a
// deny cannot pass on a fixture nobody could read.

import { after, before, describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { assertFails } from '@firebase/rules-unit-testing';
import { getDocs, query, where } from 'firebase/firestore';
import { C, REPO, UID, collection, doc, expectFound, setUp } from './helpers.mjs';

const TABLE = JSON.parse(readFileSync(resolve(REPO, 'common/audiences.json'), 'utf8'));
const RANK = Object.fromEntries(TABLE.audiences.map((a, i) => [a, i]));
const CHAT = 'chat-open';

/** Reader kinds, each at its audience: who of them may read what the table says. */
const READERS = [
  { actor: 'signedOut', label: 'a signed-out visitor of the link', audience: 'link' },
  { actor: 'other', label: 'a signed-in stranger', audience: 'link' },
  { actor: 'chatViewer', label: 'a viewer the chat is shared with', audience: 'viewers' },
  { actor: 'viewer', label: 'a viewer a private card names', audience: 'viewers' },
  { actor: 'owner', label: 'the owner', audience: 'owner' },
];

/** Where a collection's document lives when its id is not CHAT: the rules look some ids up. */
const IDS = {
  users: UID.owner, card_sources: UID.owner, embedding_progress: UID.owner, rate_limits: UID.owner,
  user_api_keys: UID.owner, viewer_lookups: UID.owner, access_token_owners: UID.owner, chat_search: UID.owner,
  embedding_workers: UID.owner, embedding_handovers: UID.owner, retrieval_index: UID.owner,
  card_write_minutes: UID.owner, embedding_skips: `${UID.owner}:${UID.owner}_card`, card_syncs: `${UID.owner}_card`,
  chat_viewers: `${CHAT}_${UID.chatViewer}`, cards: `${UID.owner}_card`,
};
/** Subcollections: the path of their parent document. */
const PARENT = { chat_background_parts: [C.chat_backgrounds, CHAT], rate_windows: [C.rate_limits, UID.owner] };
/** Read by a list filtered on the owner only (a count), never by get. */
const LIST_ONLY = new Set(['card_embeddings']);

function pathOf(key) {
  return [...(PARENT[key] || []), C[key] || key, IDS[key] || CHAT];
}

/** A document of the collection holding every declared field, in its most open state. */
function openDoc(entry) {
  const data = {};
  for (const path of Object.keys(entry.fields || {})) data[path.split('.')[0]] = 'declared';
  // `viewers` only where declared: on a chat it is the old list the rules hide it for (holdsViewersList).
  return {
    ...data, owner: UID.owner, chat: CHAT, viewer: UID.chatViewer, shown: true, published: true,
    visibility: 'public', ...('viewers' in data ? { viewers: [UID.viewer] } : {}),
  };
}

function ceiling(entry) {
  if (entry.audience) return entry.audience;
  return Object.values(entry.fields).map((f) => f.audience).reduce((a, b) => (RANK[a] >= RANK[b] ? a : b));
}

describe('audiences', () => {
  let h;
  const seeded = Object.fromEntries(Object.entries(TABLE.collections).map(([key, e]) => [pathOf(key).join('/'), openDoc(e)]));

  before(async () => {
    // chats/{CHAT} and chat_viewers/{CHAT}_{viewer} are among them: the chat is published and shared.
    h = await setUp('demo-rules-audiences', seeded);
  });
  after(() => h.tearDown());

  const read = (actor, key) => (LIST_ONLY.has(key)
    ? getDocs(query(collection(h.db[actor], pathOf(key).slice(0, -1).join('/')), where('owner', '==', UID.owner)))
      .then((s) => { if (s.empty) throw new Error(`${key}: nothing listed`); })
    : expectFound(doc(h.db[actor], pathOf(key).join('/'))));

  for (const [key, entry] of Object.entries(TABLE.collections)) {
    const top = ceiling(entry);
    for (const r of READERS) {
      if (RANK[r.audience] < RANK[top]) {
        test(`deny: ${r.label} reads ${key}, whose fields are for the ${top} audience`, () => assertFails(read(r.actor, key)));
      }
    }
    const at = READERS.find((r) => r.audience === top && r.actor !== 'viewer');
    if (at) test(`allow: ${at.label} reads ${key}, at its ${top} audience`, async () => { await read(at.actor, key); });
  }
});
