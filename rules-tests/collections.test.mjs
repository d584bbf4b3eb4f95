// collections/{id}: a user's saved collection (a query or card ids, and
// instructions to the model). Only its owner reads and writes it, admins
// read it; every limit of common/collections.json `saved_collection_limits`
// is tested at its boundary, and the scopes are collection_query's.

import { after, before, describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { assertFails, assertSucceeds } from '@firebase/rules-unit-testing';
import {
  Timestamp, deleteDoc, getDoc, getDocs, query, serverTimestamp, setDoc, updateDoc, where,
} from 'firebase/firestore';
import { ACTORS, C, REPO, UID, collection, doc, expectFound, schemaFields, setUp } from './helpers.mjs';

const SHARED = JSON.parse(readFileSync(resolve(REPO, 'common/collections.json'), 'utf8'));
const L = SHARED.saved_collection_limits;
const SCOPES = SHARED.collection_query.scopes;
const T0 = Timestamp.fromDate(new Date('2026-01-01T00:00:00Z'));

/** A stored collection of `owner`'s, shaped like collection_schema.SavedCollection (query or card_ids). */
function stored(owner = UID.owner, over = {}) {
  const d = { owner, name: 'Ocean notes', instructions: 'Answer in French.', query: { scope: 'mine', tag: 'ocean' }, created: T0, updated: T0, ...over };
  const fields = schemaFields('SavedCollection');
  for (const k of Object.keys(d)) if (!fields.includes(k)) throw new Error(`SavedCollection has no field ${k}`);
  return d;
}

/** A new collection as its owner writes it: `created` and `updated` the time of the write. */
function fresh(over = {}) {
  const d = { ...stored(UID.owner), created: serverTimestamp(), updated: serverTimestamp(), ...over };
  for (const [k, v] of Object.entries(d)) if (v === undefined) delete d[k];
  return d;
}

const ids = (n) => Array.from({ length: n }, (_, i) => `${UID.owner}_c${i}`);

/** Shapes a new collection may and may not have: [name, change, allowed]. */
const SHAPES = [
  ['a query', {}, true],
  ['card ids instead of a query', { query: undefined, card_ids: ['alice_a', 'alice_b'] }, true],
  [`${L.card_ids_max} card ids`, { query: undefined, card_ids: ids(L.card_ids_max) }, true],
  [`${L.card_ids_max + 1} card ids`, { query: undefined, card_ids: ids(L.card_ids_max + 1) }, false],
  ['no card id', { query: undefined, card_ids: [] }, false],
  ['a card id that is not a string', { query: undefined, card_ids: ['alice_a', 3] }, false],
  ['both a query and card ids', { card_ids: ['alice_a'] }, false],
  ['neither a query nor card ids', { query: undefined }, false],
  [`instructions of ${L.instructions_max_chars} characters`, { instructions: 'x'.repeat(L.instructions_max_chars) }, true],
  [`instructions of ${L.instructions_max_chars + 1} characters`, { instructions: 'x'.repeat(L.instructions_max_chars + 1) }, false],
  ['no instructions field', { instructions: undefined }, false],
  ['instructions that are not text', { instructions: 5 }, false],
  [`a name of ${L.name_max_chars} characters`, { name: 'n'.repeat(L.name_max_chars) }, true],
  [`a name of ${L.name_max_chars + 1} characters`, { name: 'n'.repeat(L.name_max_chars + 1) }, false],
  ['a blank name', { name: '  ' }, false],
  ['an unknown field', { colour: 'blue' }, false],
  ...SCOPES.filter((s) => s !== 'owner').map((scope) => [`scope ${scope}`, { query: { scope } }, true]),
  ['scope owner with its owner', { query: { scope: 'owner', owner: UID.other } }, true],
  ['scope owner without an owner', { query: { scope: 'owner' } }, false],
  ['an owner without scope owner', { query: { scope: 'mine', owner: UID.other } }, false],
  ['an unknown scope', { query: { scope: 'everyone' } }, false],
  ['the old scope visible', { query: { scope: 'visible' } }, false],
  ['an unknown query field', { query: { scope: 'mine', visibility: 'public' } }, false],
  [`a tag of ${L.tag_max_chars} characters`, { query: { tag: 't'.repeat(L.tag_max_chars) } }, true],
  [`a tag of ${L.tag_max_chars + 1} characters`, { query: { tag: 't'.repeat(L.tag_max_chars + 1) } }, false],
  [`a text of ${L.text_max_chars} characters`, { query: { text: 'w'.repeat(L.text_max_chars) } }, true],
  [`a text of ${L.text_max_chars + 1} characters`, { query: { text: 'w'.repeat(L.text_max_chars + 1) } }, false],
  ['a query that is not a map', { query: 'mine' }, false],
  ['a created time that is not the write\'s', { created: T0 }, false],
  ['an updated time that is not the write\'s', { updated: T0 }, false],
];

describe('collections', () => {
  let h;
  let n = 0;
  const id = () => `col-${++n}`;
  const kept = Array.from({ length: 13 }, () => id());

  before(async () => {
    const docs = { [`${C.collections}/mine`]: stored(), [`${C.collections}/bobs`]: stored(UID.other) };
    for (const k of kept) docs[`${C.collections}/${k}`] = stored();
    h = await setUp('demo-rules-collections', docs);
  });
  after(() => h.tearDown());

  const ref = (actor, cid) => doc(h.db[actor], C.collections, cid);

  // --- reads -------------------------------------------------------------------
  test('allow: owner gets own collection', async () => { await expectFound(ref('owner', 'mine')); });
  test('allow: admin gets the owner\'s collection', async () => { await expectFound(ref('admin', 'mine')); });
  test('allow: owner lists own collections filtered on their uid',
    async () => { await assertSucceeds(getDocs(query(collection(h.db.owner, C.collections), where('owner', '==', UID.owner)))); });
  test('allow: admin lists collections',
    async () => { await assertSucceeds(getDocs(collection(h.db.admin, C.collections))); });
  const readers = { ...ACTORS, chatViewer: 'viewer of a chat', notAdmin: 'non-admin with an admin token claim' };
  for (const actor of ['other', 'signedOut', 'chatViewer', 'notAdmin']) {
    test(`deny: ${readers[actor]} gets the owner's collection`, () => assertFails(getDoc(ref(actor, 'mine'))));
  }
  test('deny: other user lists the owner\'s collections filtered on the owner',
    () => assertFails(getDocs(query(collection(h.db.other, C.collections), where('owner', '==', UID.owner)))));
  test('deny: owner lists collections unfiltered', () => assertFails(getDocs(collection(h.db.owner, C.collections))));

  // --- create: every shape, as the owner -----------------------------------------
  for (const [name, change, allowed] of SHAPES) {
    const label = `owner creates a collection with ${name}`;
    if (allowed) test(`allow: ${label}`, async () => { await assertSucceeds(setDoc(ref('owner', id()), fresh(change))); });
    else test(`deny: ${label}`, () => assertFails(setDoc(ref('owner', id()), fresh(change))));
  }
  test('deny: other user creates a collection for the owner', () => assertFails(setDoc(ref('other', id()), fresh())));
  test('deny: admin creates a collection for the owner', () => assertFails(setDoc(ref('admin', id()), fresh())));
  test('deny: signed-out visitor creates a collection', () => assertFails(setDoc(ref('signedOut', id()), fresh())));

  // --- update ----------------------------------------------------------------------
  const edit = (over = {}) => ({ instructions: 'Answer in Spanish.', updated: serverTimestamp(), ...over });
  test('allow: owner edits own collection\'s instructions', async () => { await assertSucceeds(updateDoc(ref('owner', kept[0]), edit())); });
  test('allow: owner turns own collection\'s query into card ids', () => {
    const d = { ...stored(), query: undefined, card_ids: ['alice_a'], updated: serverTimestamp() };
    return assertSucceeds(setDoc(ref('owner', kept[1]), Object.fromEntries(Object.entries(d).filter(([, v]) => v !== undefined))));
  });
  test(`deny: owner edits own collection's instructions to ${L.instructions_max_chars + 1} characters`,
    () => assertFails(updateDoc(ref('owner', kept[2]), edit({ instructions: 'x'.repeat(L.instructions_max_chars + 1) }))));
  test('deny: owner gives own collection to another user', () => assertFails(updateDoc(ref('owner', kept[3]), edit({ owner: UID.other }))));
  test('deny: owner changes own collection\'s created time',
    () => assertFails(updateDoc(ref('owner', kept[4]), edit({ created: Timestamp.now() }))));
  test('allow: owner renames own collection and changes its filter', async () => {
    await assertSucceeds(updateDoc(ref('owner', kept[8]), edit({ name: 'Harbour notes', query: { scope: 'mine_and_shared', tag: 'harbour', text: 'tide' } })));
  });
  test('deny: owner renames own collection to a blank name', () => assertFails(updateDoc(ref('owner', kept[9]), edit({ name: ' ' }))));
  test('deny: owner changes own collection\'s filter to an unknown scope',
    () => assertFails(updateDoc(ref('owner', kept[9]), edit({ query: { scope: 'everyone' } }))));
  test('deny: owner edits own collection to hold both a query and card ids',
    () => assertFails(updateDoc(ref('owner', kept[10]), edit({ card_ids: ['alice_a'] }))));
  test('deny: owner edits own collection with an updated time that is not the write\'s',
    () => assertFails(updateDoc(ref('owner', kept[11]), edit({ updated: T0 }))));
  test('deny: signed-out visitor edits the owner\'s collection', () => assertFails(updateDoc(ref('signedOut', kept[12]), edit())));
  test('deny: other user edits the owner\'s collection', () => assertFails(updateDoc(ref('other', kept[5]), edit())));
  test('deny: admin edits the owner\'s collection', () => assertFails(updateDoc(ref('admin', kept[5]), edit())));
  test('deny: other user takes the owner\'s collection by writing it as theirs',
    () => assertFails(setDoc(ref('other', kept[5]), { ...fresh(), owner: UID.other })));

  // --- delete ----------------------------------------------------------------------
  test('deny: other user deletes the owner\'s collection', () => assertFails(deleteDoc(ref('other', kept[6]))));
  test('deny: admin deletes the owner\'s collection', () => assertFails(deleteDoc(ref('admin', kept[6]))));
  test('deny: signed-out visitor deletes the owner\'s collection', () => assertFails(deleteDoc(ref('signedOut', kept[6]))));
  test('allow: owner deletes own collection', async () => { await assertSucceeds(deleteDoc(ref('owner', kept[7]))); });
});
