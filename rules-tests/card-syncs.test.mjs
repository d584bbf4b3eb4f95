// card_syncs/{cardId}: where a synced card came from (the owner's folder and
// path), written by syncCards. The owner gets theirs by their card's id,
// missing ones too (a card not synced has none), and lists theirs filtered on
// their uid; nobody else reads one, nobody writes.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFails } from '@firebase/rules-unit-testing';
import { Timestamp, deleteDoc, getDoc, getDocs, query, setDoc, updateDoc, where } from 'firebase/firestore';
import { ACTORS, C, UID, collection, doc, setUp } from './helpers.mjs';

const T0 = Timestamp.fromDate(new Date('2026-01-01T00:00:00Z'));
const MINE = `${UID.owner}_sync-1`;
const THEIRS = `${UID.other}_sync-1`;
const record = (over = {}) => ({
  owner: UID.owner, card: MINE, source: 'my-vault', path: 'notes/git/rebase.md',
  sha256: '0'.repeat(64), card_hash: '1'.repeat(64), synced: T0, ...over,
});

describe('card_syncs: the owner reads where their synced cards came from', () => {
  let h;
  before(async () => {
    h = await setUp('demo-rules-card-syncs', {
      [`${C.card_syncs}/${MINE}`]: record(),
      [`${C.card_syncs}/${THEIRS}`]: record({ owner: UID.other, card: THEIRS }),
    });
  });
  after(() => h.tearDown());
  const syncs = (actor) => collection(h.db[actor], C.card_syncs);
  const ofOwner = (actor, owner = UID.owner) => query(syncs(actor), where('owner', '==', owner));

  test('allow: owner gets their card\'s, by id', async () => {
    assert.equal((await getDoc(doc(syncs('owner'), MINE))).data()?.path, 'notes/git/rebase.md');
  });
  test('allow: owner gets a card\'s of theirs that was never synced', async () => {
    assert.equal((await getDoc(doc(syncs('owner'), `${UID.owner}_typed`))).exists(), false);
  });
  test('allow: owner lists theirs', async () => {
    assert.equal((await getDocs(ofOwner('owner'))).size, 1);
  });
  test('deny: owner lists every record', () => assertFails(getDocs(syncs('owner'))));
  test('deny: owner gets another owner\'s', () => assertFails(getDoc(doc(syncs('owner'), THEIRS))));
  test('deny: owner gets a missing one in another\'s namespace', () => assertFails(getDoc(doc(syncs('owner'), `${UID.other}_typed`))));
  for (const actor of ['other', 'signedOut', 'admin']) {
    test(`deny: ${ACTORS[actor]} gets the owner's`, () => assertFails(getDoc(doc(syncs(actor), MINE))));
    test(`deny: ${ACTORS[actor]} lists the owner's`, () => assertFails(getDocs(ofOwner(actor))));
  }
  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`deny: ${label} creates a record`, () => assertFails(setDoc(doc(syncs(actor), `${UID.owner}_${actor}-new`), record())));
    test(`deny: ${label} updates the owner's record`, () => assertFails(updateDoc(doc(syncs(actor), MINE), { path: 'x.md' })));
  }
  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`deny: ${label} deletes the owner's record`, () => assertFails(deleteDoc(doc(syncs(actor), MINE))));
  }
});
