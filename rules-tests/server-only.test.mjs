// card_embeddings, rate_limits (and its windows), card_write_minutes, user_api_keys, access_token_hashes, access_token_owners, chat_sources, embedding_queue, embedding_workers, embedding_handovers, viewer_lookups,
// retrieval_index(_shards), account_deletions and any collection the rules do not name:
// server-only. Every client, the owner of the data and admins included, is
// denied every read and write; the one exception, an owner listing their own
// card_embeddings filtered on owner, is in card-embeddings.test.mjs.

import { after, before, describe, test } from 'node:test';
import { assertFails } from '@firebase/rules-unit-testing';
import { Timestamp, deleteDoc, getDoc, getDocs, query, setDoc, updateDoc, where } from 'firebase/firestore';
import {
  ACTORS, C, UID, cardDoc, chatDoc, collection, doc, embeddingDoc, expectFound, fixtures, rateLimitDoc, setUp,
} from './helpers.mjs';

const CARD = 'card-public';
const CHAT = 'chat-published';
const T0 = Timestamp.fromDate(new Date('2026-01-01T00:00:00Z'));

// Each: a name for the test titles, the path of a collection, a document for
// it (keyed by the owner's uid or card where the server does so), a field to
// change.
const PLACES = [
  { name: C.card_embeddings, coll: [C.card_embeddings], id: CARD, data: embeddingDoc(), change: { dim: 5 } },
  { name: C.rate_limits, coll: [C.rate_limits], id: UID.owner, data: rateLimitDoc(), change: { day_tokens: 0 } },
  // a user's embedded card writes this minute (the card quota)
  { name: C.card_write_minutes, coll: [C.card_write_minutes], id: UID.owner, data: { minute: '2026-01-01T00:00', count: 3 }, change: { count: 0 } },
  // a user's minute of searches and of MCP requests: not even that user reads or resets it
  { name: `${C.rate_limits}/*/${C.rate_windows}`, coll: [C.rate_limits, UID.owner, C.rate_windows], id: 'search', data: { recent: [T0] }, change: { recent: [] } },
  // a user's own API keys, sealed: not even that user reads or writes them
  {
    name: C.user_api_keys, coll: [C.user_api_keys], id: UID.owner,
    data: { keys: { anthropic: { ciphertext: 'x', nonce: 'n', last4: 'abcd' } } }, change: { keys: {} },
  },
  { name: C.access_token_hashes, coll: [C.access_token_hashes], id: 'f00d', data: { owner: UID.owner, token_id: 't1', created: T0 }, change: { owner: UID.other } },
  // what makes two createAccessToken calls at once conflict (the 20-token cap): a client's write would only disturb it
  { name: C.access_token_owners, coll: [C.access_token_owners], id: UID.owner, data: { last_created: T0 }, change: { last_created: null } },
  // the card ids a chat was made from, ranked again for each follow-up: not even its owner reads them
  { name: C.chat_sources, coll: [C.chat_sources], id: CHAT, data: { chat: CHAT, owner: UID.owner, card_ids: [CARD, 'card-private'], ranked_for: 1, collection_query: { scope: 'mine' } }, change: { card_ids: [] } },
  // an answer waiting for its run: a client's write would start a generation (generateAnswer fires on its creation)
  // which cards wait for their vector, and which worker embeds an owner's cards: only the progress is the owner's
  { name: C.embedding_queue, coll: [C.embedding_queue], id: CARD, data: { owner: UID.owner, version: 'v1', enqueued: T0 }, change: { version: 'v2' } },
  { name: C.embedding_workers, coll: [C.embedding_workers], id: UID.owner, data: { worker: 'w1', alive_until: T0 }, change: { worker: 'w2' } },
  // a worker out of time handing the owner's queue over (its write starts resumeEmbedding): a client's write would start one too
  { name: C.embedding_handovers, coll: [C.embedding_handovers], id: UID.owner, data: { worker: 'w1', at: T0 }, change: { worker: 'w2' } },
  // a user's budget of email look-ups and the uids they found (resolveViewers): not even that user reads it
  { name: C.viewer_lookups, coll: [C.viewer_lookups], id: UID.owner, data: { window_start: T0, count: 3, found: [UID.other] }, change: { count: 0 } },
  // the per-owner retrieval index: head and shards, not even their owner reads them
  { name: C.retrieval_index, coll: [C.retrieval_index], id: UID.owner, data: { owner: UID.owner, version: 1, slots: 1, shards: [`${UID.owner}.1.0.ab`] }, change: { version: 2 } },
  { name: C.retrieval_index_shards, coll: [C.retrieval_index_shards], id: `${UID.owner}.1.0.ab`, data: { owner: UID.owner, version: 1, slot: 0, data: 'x' }, change: { version: 2 } },
  // an account deleted, its later pass due (the deletion runs again then): not even that user reads or clears it
  { name: C.account_deletions, coll: [C.account_deletions], id: UID.owner, data: { due: T0 }, change: { due: null } },
  { name: 'an unnamed top-level collection', coll: ['anything_else'], id: 'x', data: { owner: UID.owner }, change: { owner: UID.other } },
  { name: 'an unnamed subcollection of a published chat', coll: [C.chats, CHAT, 'extra'], id: 'x', data: { owner: UID.owner }, change: { owner: UID.other } },
  { name: 'an unnamed subcollection of a public card', coll: [C.cards, CARD, 'extra'], id: 'x', data: { owner: UID.owner }, change: { owner: UID.other } },
];

describe('server-only collections', () => {
  let h;
  const w = fixtures();
  const seeds = {
    [`${C.cards}/${CARD}`]: cardDoc({ visibility: 'public' }),
    [`${C.chats}/${CHAT}`]: chatDoc({ published: true }),
  };
  for (const p of PLACES) seeds[`${p.coll.join('/')}/${p.id}`] = p.data;

  before(async () => { h = await setUp('demo-rules-server-only', { ...seeds, ...w.docs }); });
  after(() => h.tearDown());

  for (const p of PLACES) {
    const coll = (actor) => collection(h.db[actor], p.coll.join('/'));
    for (const [actor, label] of Object.entries(ACTORS)) {
      test(`deny: ${label} gets a doc of ${p.name}`, () => assertFails(expectFound(doc(coll(actor), p.id))));
      // A denial, not a not-found: what the server keeps must not be probeable.
      test(`deny: ${label} gets a missing doc of ${p.name}`, () => assertFails(getDoc(doc(coll(actor), 'missing'))));
      test(`deny: ${label} lists ${p.name}`, () => assertFails(getDocs(coll(actor))));
      if (!(p.name === C.card_embeddings && actor === 'owner')) {
        test(`deny: ${label} lists ${p.name} filtered on owner`,
          () => assertFails(getDocs(query(coll(actor), where('owner', '==', UID.owner)))));
      }
      test(`deny: ${label} creates a doc in ${p.name}`, () => assertFails(setDoc(doc(coll(actor), w.newId('new')), p.data)));
      const upd = w.add(p.coll.join('/'), p.data);
      test(`deny: ${label} updates a doc of ${p.name}`, () => assertFails(updateDoc(doc(coll(actor), upd), p.change)));
      const del = w.add(p.coll.join('/'), p.data);
      test(`deny: ${label} deletes a doc of ${p.name}`, () => assertFails(deleteDoc(doc(coll(actor), del))));
    }
  }
});
