// embedding_progress/{uid}: the owner's embedding progress (pending, embedded,
// updated), written by the embedCard worker. Only that user may get it, their
// own missing one included; nobody lists it, nobody writes it.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFails } from '@firebase/rules-unit-testing';
import { Timestamp, deleteDoc, getDoc, getDocs, setDoc, updateDoc } from 'firebase/firestore';
import { ACTORS, C, UID, collection, doc, setUp } from './helpers.mjs';

const T0 = Timestamp.fromDate(new Date('2026-01-01T00:00:00Z'));
const progress = (over = {}) => ({ pending: 3, embedded: 40, updated: T0, ...over });

describe('embedding_progress: the owner reads their own', () => {
  let h;
  before(async () => {
    h = await setUp('demo-rules-embedding-progress', {
      [`${C.embedding_progress}/${UID.owner}`]: progress(),
      [`${C.embedding_progress}/${UID.other}`]: progress({ pending: 0 }),
    });
  });
  after(() => h.tearDown());
  const ref = (actor, uid = UID.owner) => doc(collection(h.db[actor], C.embedding_progress), uid);

  test('allow: owner gets their progress', async () => {
    assert.equal((await getDoc(ref('owner'))).data()?.pending, 3);
  });
  test('allow: a user without progress yet gets their missing one', async () => {
    assert.equal((await getDoc(ref('admin', UID.admin))).exists(), false);
  });
  test('deny: owner lists every progress', () => assertFails(getDocs(collection(h.db.owner, C.embedding_progress))));
  for (const actor of ['other', 'signedOut', 'admin', 'viewer']) {
    test(`deny: ${ACTORS[actor] ?? actor} gets the owner's progress`, () => assertFails(getDoc(ref(actor))));
  }
  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`deny: ${label} creates a progress`, () => assertFails(setDoc(ref(actor, `${actor}-new`), progress())));
    test(`deny: ${label} updates the owner's progress`, () => assertFails(updateDoc(ref(actor), { pending: 0 })));
  }
  test('deny: a user creates their own missing progress', () => assertFails(setDoc(ref('admin', UID.admin), progress())));
  // Last: against rules that allow everything the first delete goes through, and later ones must too.
  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`deny: ${label} deletes the owner's progress`, () => assertFails(deleteDoc(ref(actor))));
  }
});
