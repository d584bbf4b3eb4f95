// cards: public cards by anyone, signed in or not; private cards by their
// owner, the uids in `viewers` and admins. A missing card is denied as a
// private one is. The SPA's three list queries are
// allowed; nobody but an admin lists cards without one of them. Who writes
// a card: cards-write.test.mjs.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFails } from '@firebase/rules-unit-testing';
import { getDoc, getDocs, query, where } from 'firebase/firestore';
import {
  C, UID, cardDoc, collection, doc, expectFound, fixtures, setUp,
} from './helpers.mjs';

const ACTORS = {
  owner: 'owner', viewer: 'listed viewer', other: 'other user', signedOut: 'signed-out visitor', admin: 'admin',
};
const PUBLIC = 'card-public';
const PRIVATE = 'card-private'; // owner alice, viewers [vic]
const BOBS = 'card-private-of-bob';
const FOR_BOB = 'card-of-vic-shared-with-bob';

describe('cards', () => {
  let h;
  const w = fixtures();

  before(async () => {
    h = await setUp('demo-rules-cards', {
      [`${C.cards}/${PUBLIC}`]: cardDoc({ visibility: 'public' }),
      [`${C.cards}/${PRIVATE}`]: cardDoc({ viewers: [UID.viewer] }),
      [`${C.cards}/${BOBS}`]: cardDoc({ owner: UID.other }),
      [`${C.cards}/${FOR_BOB}`]: cardDoc({ owner: UID.viewer, viewers: [UID.other] }),
      ...w.docs,
    });
  });
  after(() => h.tearDown());

  const card = (actor, id) => doc(h.db[actor], C.cards, id);
  const cards = (actor) => collection(h.db[actor], C.cards);
  /** getDocs that must succeed and return `expected` among its results. */
  async function listIncludes(q, ...expected) {
    const ids = (await getDocs(q)).docs.map((d) => d.id);
    for (const id of expected) assert.ok(ids.includes(id), `${id} not in ${ids}`);
    return ids;
  }

  // --- get -----------------------------------------------------------------
  const mayReadPrivate = { owner: true, viewer: true, other: false, signedOut: false, admin: true };
  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`allow: ${label} gets a public card`, async () => { await expectFound(card(actor, PUBLIC)); });
    if (mayReadPrivate[actor]) {
      test(`allow: ${label} gets a private card`, async () => { await expectFound(card(actor, PRIVATE)); });
    } else {
      test(`deny: ${label} gets a private card`, () => assertFails(expectFound(card(actor, PRIVATE))));
    }
    // Denied, not not-found: a guessed id cannot tell a missing card from another user's private one.
    test(`deny: ${label} gets a missing card`, () => assertFails(getDoc(card(actor, 'no-such-card'))));
  }
  test('deny: listed viewer gets another owner\'s private card', () => assertFails(expectFound(card('viewer', BOBS))));

  // --- list ----------------------------------------------------------------
  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`allow: ${label} lists public cards`, async () => {
      const ids = await listIncludes(query(cards(actor), where('visibility', '==', 'public')), PUBLIC);
      assert.ok(!ids.includes(PRIVATE));
    });
    if (actor === 'admin') {
      test('allow: admin lists all cards without a filter', async () => { await listIncludes(cards('admin'), PUBLIC, PRIVATE, BOBS); });
      test('allow: admin lists private cards', async () => {
        await listIncludes(query(cards('admin'), where('visibility', '==', 'private')), PRIVATE, BOBS); });
    } else {
      test(`deny: ${label} lists cards without a filter`, () => assertFails(getDocs(cards(actor))));
      test(`deny: ${label} lists private cards`,
        () => assertFails(getDocs(query(cards(actor), where('visibility', '==', 'private')))));
    }
  }
  test('allow: owner lists own cards filtered on owner', async () => {
    const ids = await listIncludes(query(cards('owner'), where('owner', '==', UID.owner)), PUBLIC, PRIVATE);
    assert.ok(!ids.includes(BOBS));
  });
  test('allow: admin lists another user\'s cards filtered on owner',
    async () => { await listIncludes(query(cards('admin'), where('owner', '==', UID.owner)), PUBLIC, PRIVATE); });
  for (const actor of ['viewer', 'other', 'signedOut']) {
    test(`deny: ${ACTORS[actor]} lists the owner's cards filtered on owner`,
      () => assertFails(getDocs(query(cards(actor), where('owner', '==', UID.owner)))));
  }
  test('allow: listed viewer lists cards shared with them', async () => {
    const ids = await listIncludes(query(cards('viewer'), where('viewers', 'array-contains', UID.viewer)), PRIVATE);
    assert.ok(!ids.includes(BOBS));
  });
  test('allow: other user lists cards shared with them', async () => {
    const ids = await listIncludes(query(cards('other'), where('viewers', 'array-contains', UID.other)), FOR_BOB);
    assert.ok(!ids.includes(PRIVATE));
  });
  test('deny: other user lists cards shared with someone else',
    () => assertFails(getDocs(query(cards('other'), where('viewers', 'array-contains', UID.viewer)))));
  test('deny: signed-out visitor lists cards shared with a user',
    () => assertFails(getDocs(query(cards('signedOut'), where('viewers', 'array-contains', UID.viewer)))));
  // Writes: rules-tests/cards-write.test.mjs.
});
