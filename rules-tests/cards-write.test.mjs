// cards, writes: a signed-in user creates, edits and deletes the
// cards they own, directly with the SDK, and nothing else. Every field's
// limit is tested at its boundary with the numbers of common/collections.json
// (CARD_LIMITS), so firestore.rules cannot drift from the definition the CLI
// importer and the SPA use. Admins are read-only; the CLI writes through the
// server.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFails, assertSucceeds } from '@firebase/rules-unit-testing';
import {
  Timestamp, arrayUnion, deleteDoc, deleteField, serverTimestamp, setDoc, updateDoc,
} from 'firebase/firestore';
import { C, CARD_ID_CASES, CARD_LIMITS as L, UID, cardDoc, doc, fixtures, setUp } from './helpers.mjs';

const ACTORS = {
  owner: 'owner', viewer: 'listed viewer', other: 'other user', signedOut: 'signed-out visitor', admin: 'admin',
};
const now = () => ({ created: serverTimestamp(), updated: serverTimestamp() });
/** A card as a client writes it: cardDoc's shape, timestamps the time of the write, then `over` (which may break the shape). */
const fresh = (over = {}) => ({ ...cardDoc(now()), ...over });
const strings = (n, len, prefix = 'x') => Array.from({ length: n }, (_, i) => `${prefix}${i}`.padEnd(len, 'x'));

// Cards a new owner may not write, each named by what is wrong with it.
const INVALID = {
  'an unknown field': { extra: 1 },
  'an empty title': { title: '' },
  'a blank title': { title: '  \n ' },
  'a number as title': { title: 7 },
  [`a title over ${L.title_max_chars} characters`]: { title: 't'.repeat(L.title_max_chars + 1) },
  'an empty body': { body: '' },
  'a number as body': { body: 3 },
  [`a body over ${L.body_max_bytes} bytes`]: { body: 'b'.repeat(L.body_max_bytes + 1) },
  [`a body over ${L.body_max_bytes} bytes in two-byte characters`]: { body: 'é'.repeat(L.body_max_bytes / 2 + 1) },
  'an unknown visibility': { visibility: 'secret' },
  'tags as a string': { tags: 'ocean' },
  'a number among the tags': { tags: ['ocean', 3] },
  'a boolean among the viewers': { viewers: [UID.viewer, true] },
  'a line break in a tag': { tags: ['two\nlines'] },
  'an empty tag': { tags: ['ocean', ''] },
  [`${L.tags_max + 1} tags`]: { tags: strings(L.tags_max + 1, 3, 't') },
  [`a tag over ${L.tag_max_chars} characters`]: { tags: ['t'.repeat(L.tag_max_chars + 1)] },
  'viewers as a string': { viewers: UID.viewer },
  [`${L.viewers_max + 1} viewers`]: { viewers: strings(L.viewers_max + 1, 3, 'v') },
  [`a viewer over ${L.viewer_max_chars} characters`]: { viewers: ['v'.repeat(L.viewer_max_chars + 1)] },
  'viewers on a public card': { visibility: 'public', viewers: [UID.viewer] },
  'a past created': { created: Timestamp.fromDate(new Date('2026-01-01T00:00:00Z')) },
  'a past updated': { updated: Timestamp.fromDate(new Date('2026-01-01T00:00:00Z')) },
  'a future updated': { updated: Timestamp.fromDate(new Date('2100-01-01T00:00:00Z')) },
};
const FIELDS = Object.keys(cardDoc());

describe('cards: writes', () => {
  let h;
  const w = fixtures();
  const stored = (over = {}) => w.add(C.cards, cardDoc(over), 'card');
  before(async () => { h = await setUp('demo-rules-cards-write', w.docs); });
  after(() => h.tearDown());
  const card = (actor, id) => doc(h.db[actor], C.cards, id);
  /** A new id in the owner's namespace (common/collections.json card_ids). */
  const own = () => `${UID.owner}_${w.newId('new')}`;

  // --- create ----------------------------------------------------------------
  test('allow: owner creates a card they own', async () => {
    const id = own();
    await assertSucceeds(setDoc(card('owner', id), fresh()));
    const got = await h.peek(`${C.cards}/${id}`);
    assert.equal(got.owner, UID.owner);
    assert.ok(got.created.isEqual(got.updated), 'created and updated are the time of the write');
  });
  test('allow: owner creates a card at every limit', () => assertSucceeds(setDoc(card('owner', own()), fresh({
    title: 't'.repeat(L.title_max_chars),
    body: 'é'.repeat(L.body_max_bytes / 2),
    tags: strings(L.tags_max, L.tag_max_chars, 't'),
    viewers: strings(L.viewers_max, L.viewer_max_chars, 'v'),
  }))));
  test('allow: owner creates a card with title, body and tags at their limits', () => assertSucceeds(setDoc(card('owner', own()), fresh({
    title: 't'.repeat(L.title_max_chars),
    body: 'é'.repeat(L.body_max_bytes / 2),
    tags: strings(L.tags_max, L.tag_max_chars, 't'),
  }))));
  test('allow: owner creates a card with viewers at their limit', () => assertSucceeds(setDoc(card('owner', own()), fresh({
    viewers: strings(L.viewers_max, L.viewer_max_chars, 'v'),
  }))));
  test('allow: owner creates a public card', () => assertSucceeds(setDoc(card('owner', own()), fresh({ visibility: 'public' }))));
  for (const [actor, label] of Object.entries(ACTORS)) {
    if (actor === 'owner') continue;
    test(`deny: ${label} creates a card owned by the owner`,
      () => assertFails(setDoc(card(actor, own()), fresh())));
  }
  test('deny: signed-out visitor creates a card without an owner',
    () => assertFails(setDoc(card('signedOut', own()), fresh({ owner: '' }))));
  for (const [what, over] of Object.entries(INVALID)) {
    test(`deny: owner creates a card with ${what}`, () => assertFails(setDoc(card('owner', own()), fresh(over))));
  }
  // The namespace: one case file for the rules, the CLI importer and the SPA.
  for (const { uid, id, own: allowed } of CARD_ID_CASES) {
    test(`${allowed ? 'allow' : 'deny'}: ${uid} creates a card of their own under the id ${JSON.stringify(id)}`, () => {
      const write = setDoc(doc(h.env.authenticatedContext(uid).firestore(), C.cards, id), fresh({ owner: uid }));
      return allowed ? assertSucceeds(write) : assertFails(write);
    });
  }
  {
    const taken = w.add(C.cards, cardDoc({ owner: UID.other }), `${UID.other}_exists`);
    test('deny: owner creates a card under another owner\'s id, existing or not: nothing to probe, take or re-create', async () => {
      await assertFails(setDoc(card('owner', taken), fresh()));
      await assertFails(setDoc(card('owner', `${UID.other}_missing`), fresh()));
    });
  }
  for (const field of FIELDS) {
    test(`deny: owner creates a card without ${field}`, () => {
      const data = fresh();
      delete data[field];
      return assertFails(setDoc(card('owner', own()), data));
    });
  }

  // --- update ----------------------------------------------------------------
  // The stored cards here have ids from before namespaces (`card-<n>`): their
  // owner still edits and deletes them.
  {
    const id = stored({ viewers: [UID.viewer] });
    test('allow: owner edits title, body, tags and viewers of their card', () => assertSucceeds(updateDoc(card('owner', id), {
      title: 'Spring tides', body: 'Sun and moon aligned.', tags: ['ocean', 'moon'], viewers: [UID.other], updated: serverTimestamp(),
    })));
  }
  {
    const id = stored({ viewers: [UID.viewer] });
    test('allow: owner makes their private card public', () => assertSucceeds(updateDoc(card('owner', id), {
      visibility: 'public', viewers: [], updated: serverTimestamp(),
    })));
  }
  {
    const id = stored();
    test('allow: owner rewrites their card whole (set), created kept', async () => {
      const before = await h.peek(`${C.cards}/${id}`);
      await assertSucceeds(setDoc(card('owner', id), cardDoc({ body: 'new', created: before.created, updated: serverTimestamp() })));
    });
  }
  for (const [actor, label] of Object.entries(ACTORS)) {
    if (actor === 'owner') continue;
    const id = stored({ viewers: [UID.viewer] });
    test(`deny: ${label} edits the owner's card`,
      () => assertFails(updateDoc(card(actor, id), { body: 'rewritten', updated: serverTimestamp() })));
  }
  {
    const id = stored({ owner: UID.other });
    test('deny: owner overwrites another owner\'s card as their own',
      () => assertFails(setDoc(card('owner', id), fresh())));
  }
  {
    const id = stored();
    test('deny: owner gives their card to another owner',
      () => assertFails(updateDoc(card('owner', id), { owner: UID.other, updated: serverTimestamp() })));
  }
  {
    const id = stored();
    test('deny: owner changes created',
      () => assertFails(updateDoc(card('owner', id), { created: serverTimestamp(), updated: serverTimestamp() })));
  }
  {
    const id = stored();
    test('deny: owner edits without moving updated to the time of the write',
      () => assertFails(updateDoc(card('owner', id), { body: 'rewritten' })));
  }
  {
    const id = stored();
    test('deny: owner removes a field of their card',
      () => assertFails(updateDoc(card('owner', id), { tags: deleteField(), updated: serverTimestamp() })));
  }
  for (const [what, over] of Object.entries(INVALID)) {
    if (what.includes('created')) continue; // an update keeps created: tested above
    const id = stored();
    test(`deny: owner edits their card to ${what}`, () => assertFails(updateDoc(card('owner', id), { updated: serverTimestamp(), ...over })));
  }
  {
    const id = stored();
    test('deny: other user adds themself to the viewers of a private card',
      () => assertFails(updateDoc(card('other', id), { viewers: arrayUnion(UID.other), updated: serverTimestamp() })));
  }

  // --- delete ----------------------------------------------------------------
  {
    const id = stored();
    test('allow: owner deletes their card', () => assertSucceeds(deleteDoc(card('owner', id))));
  }
  for (const [actor, label] of Object.entries(ACTORS)) {
    if (actor === 'owner') continue;
    const id = stored({ viewers: [UID.viewer] });
    test(`deny: ${label} deletes the owner's card`, () => assertFails(deleteDoc(card(actor, id))));
  }
});
