// users/{uid}: a user reads their own document (may_use_ai, admin), admins
// read any; nobody lists them and no client writes one, so no one can grant
// themself AI use or admin.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFails } from '@firebase/rules-unit-testing';
import { deleteDoc, getDoc, getDocs, query, setDoc, updateDoc, where } from 'firebase/firestore';
import {
  ACTORS, C, UID, collection, doc, expectFound, expectMissing, fixtures, setUp, userDoc,
} from './helpers.mjs';

describe('users', () => {
  let h;
  const w = fixtures();

  // The owner (alice) has a users document; the other user (bob) has none.
  before(async () => {
    h = await setUp('demo-rules-users', { [`${C.users}/${UID.owner}`]: userDoc({ may_use_ai: true }), ...w.docs });
  });
  after(() => h.tearDown());

  const user = (actor, uid) => doc(h.db[actor], C.users, uid);
  const users = (actor) => collection(h.db[actor], C.users);

  test('allow: owner gets own users doc', async () => {
    const snap = await expectFound(user('owner', UID.owner));
    assert.equal(snap.data().may_use_ai, true);
  });
  test('allow: other user gets own missing users doc and sees not-found', () => expectMissing(user('other', UID.other)));
  test('deny: other user gets the owner\'s users doc', () => assertFails(expectFound(user('other', UID.owner))));
  test('deny: owner gets the admin\'s users doc', () => assertFails(expectFound(user('owner', UID.admin))));
  test('deny: signed-out visitor gets the owner\'s users doc', () => assertFails(expectFound(user('signedOut', UID.owner))));
  test('allow: admin gets the owner\'s users doc', async () => { await expectFound(user('admin', UID.owner)); });
  test('allow: admin gets own users doc', async () => { await expectFound(user('admin', UID.admin)); });
  test('deny: owner gets another user\'s missing users doc', () => assertFails(getDoc(user('owner', UID.other))));
  test('deny: signed-out visitor gets a missing users doc', () => assertFails(getDoc(user('signedOut', UID.other))));
  test('allow: admin gets a missing users doc and sees not-found', () => expectMissing(user('admin', UID.other)));
  test('deny: non-admin with an admin token claim gets the owner\'s users doc',
    () => assertFails(expectFound(user('notAdmin', UID.owner))));

  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`deny: ${label} lists users without a filter`, () => assertFails(getDocs(users(actor))));
    test(`deny: ${label} lists admins`, () => assertFails(getDocs(query(users(actor), where('admin', '==', true)))));
  }

  // --- writes: the server and the admin CLI only ---------------------------
  for (const field of ['may_use_ai', 'admin']) {
    const id = w.add(C.users, userDoc(), 'user');
    test(`deny: a user sets ${field} on own users doc`, async () => {
      const ctx = h.env.authenticatedContext(id).firestore();
      await assertFails(updateDoc(doc(ctx, C.users, id), { [field]: true }));
    });
  }
  {
    const id = w.add(C.users, userDoc(), 'user');
    test('deny: a user adds another field to own users doc', async () => {
      const ctx = h.env.authenticatedContext(id).firestore();
      await assertFails(updateDoc(doc(ctx, C.users, id), { nickname: 'me' }));
    });
    const merged = w.add(C.users, userDoc(), 'user');
    test('deny: a user merges another field into own users doc', async () => {
      const ctx = h.env.authenticatedContext(merged).firestore();
      await assertFails(setDoc(doc(ctx, C.users, merged), { nickname: 'me' }, { merge: true }));
    });
  }
  test('deny: other user creates own users doc', () => assertFails(setDoc(user('other', UID.other), userDoc())));
  test('deny: other user creates own users doc as admin',
    () => assertFails(setDoc(user('other', UID.other), userDoc({ admin: true, may_use_ai: true }))));
  {
    const id = w.add(C.users, userDoc(), 'user');
    test('deny: a user deletes own users doc', async () => {
      const ctx = h.env.authenticatedContext(id).firestore();
      await assertFails(deleteDoc(doc(ctx, C.users, id)));
    });
  }
  for (const actor of ['other', 'signedOut', 'admin']) {
    const id = w.add(C.users, userDoc(), 'user');
    test(`deny: ${ACTORS[actor]} sets may_use_ai on another user's doc`,
      () => assertFails(updateDoc(user(actor, id), { may_use_ai: true })));
    const del = w.add(C.users, userDoc(), 'user');
    test(`deny: ${ACTORS[actor]} deletes another user's doc`, () => assertFails(deleteDoc(user(actor, del))));
    test(`deny: ${ACTORS[actor]} creates a users doc for someone else`,
      () => assertFails(setDoc(user(actor, w.newId('new')), userDoc())));
  }
});
