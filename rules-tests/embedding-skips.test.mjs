// embedding_skips/{uid}:{cardId}: why a card of the owner's was not embedded
// (over a card quota), written by the embedding worker. Its id is in the
// owner's namespace: a user gets their own by id, missing ones too (a card
// within the limits has none), never another's; the owner lists (counts)
// theirs filtered on their uid. Nobody writes.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFails } from '@firebase/rules-unit-testing';
import { Timestamp, deleteDoc, getCountFromServer, getDoc, getDocs, query, setDoc, updateDoc, where } from 'firebase/firestore';
import { ACTORS, C, UID, collection, doc, setUp } from './helpers.mjs';

const T0 = Timestamp.fromDate(new Date('2026-01-01T00:00:00Z'));
const skip = (over = {}) => ({ owner: UID.owner, card: 'alice-1', reason: 'card_limit', at: T0, ...over });
const MINE = `${UID.owner}:alice-1`;
const THEIRS = `${UID.other}:bob-1`;

describe('embedding_skips: the owner reads theirs', () => {
  let h;
  before(async () => {
    h = await setUp('demo-rules-embedding-skips', {
      [`${C.embedding_skips}/${MINE}`]: skip(),
      [`${C.embedding_skips}/${UID.owner}:alice-2`]: skip({ card: 'alice-2', reason: 'write_rate' }),
      [`${C.embedding_skips}/${THEIRS}`]: skip({ owner: UID.other, card: 'bob-1' }),
    });
  });
  after(() => h.tearDown());
  const skips = (actor) => collection(h.db[actor], C.embedding_skips);
  const ofOwner = (actor, owner = UID.owner) => query(skips(actor), where('owner', '==', owner));

  test('allow: owner gets one card\'s, by id', async () => {
    assert.equal((await getDoc(doc(skips('owner'), MINE))).data()?.reason, 'card_limit');
  });
  test('allow: owner gets a card\'s of theirs that has none', async () => {
    assert.equal((await getDoc(doc(skips('owner'), `${UID.owner}:alice-9`))).exists(), false);
  });
  test('allow: owner counts theirs', async () => {
    assert.equal((await getCountFromServer(ofOwner('owner'))).data().count, 2);
  });
  test('deny: owner lists every skip', () => assertFails(getDocs(skips('owner'))));
  test('deny: owner gets another owner\'s', () => assertFails(getDoc(doc(skips('owner'), THEIRS))));
  test('deny: owner gets a missing one in another\'s namespace', () => assertFails(getDoc(doc(skips('owner'), `${UID.other}:bob-9`))));
  test('deny: owner gets an id with their uid only as a prefix', () => assertFails(getDoc(doc(skips('owner'), `${UID.owner}x:alice-1`))));
  for (const actor of ['other', 'signedOut', 'admin']) {
    test(`deny: ${ACTORS[actor]} gets the owner's`, () => assertFails(getDoc(doc(skips(actor), MINE))));
    test(`deny: ${ACTORS[actor]} lists the owner's`, () => assertFails(getDocs(ofOwner(actor))));
  }
  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`deny: ${label} creates a skip`, () => assertFails(setDoc(doc(skips(actor), `${UID.owner}:${actor}-new`), skip())));
    test(`deny: ${label} updates the owner's skip`, () => assertFails(updateDoc(doc(skips(actor), `${UID.owner}:alice-2`), { reason: 'card_limit' })));
  }
  // Last: against rules that allow everything the first delete goes through, and later ones must too.
  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`deny: ${label} deletes the owner's skip`, () => assertFails(deleteDoc(doc(skips(actor), MINE))));
  }
});
