// card_sources/{uid}: which other people's cards a user chose (the owners
// whose public cards they follow, the sharers they accepted and those they stopped). Only that user
// reads and writes it, admins read it; every shape case of
// common/card_sources_cases.json (which the SPA's validator is checked on
// too) is written here, at the limits of common/collections.json.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { assertFails, assertSucceeds } from '@firebase/rules-unit-testing';
import {
  Timestamp, deleteDoc, getDoc, getDocs, query, serverTimestamp, setDoc, updateDoc, where,
} from 'firebase/firestore';
import { ACTORS, C, REPO, UID, collection, doc, expectFound, expectMissing, setUp } from './helpers.mjs';

const TABLE = JSON.parse(readFileSync(resolve(REPO, 'common/card_sources_cases.json'), 'utf8'));
const L = JSON.parse(readFileSync(resolve(REPO, 'common/collections.json'), 'utf8')).card_source_limits;

/** A case's value with its 'repeat' shorthands spelled out and "$self" as `uid`. */
function expand(value, uid) {
  if (value === '$self') return uid;
  if (typeof value === 'string' && value.startsWith('repeat:')) {
    const [, c, n] = value.split(':');
    return c.repeat(Number(n));
  }
  if (Array.isArray(value) && value[0] === 'repeat') {
    const [, item, n] = value;
    return Array.from({ length: n }, (_, i) => (typeof item === 'string' ? `${item}${i}` : { ...item, owner: `${item.owner}${i}` }));
  }
  if (Array.isArray(value)) return value.map((v) => expand(v, uid));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, uid)]));
  return value;
}

/** The case's document as `uid` writes it: `updated` the time of the write. */
function caseDoc(change, uid) {
  const d = { ...expand(TABLE.base, uid), updated: serverTimestamp() };
  for (const [k, v] of Object.entries(change)) {
    if (v === '$absent') delete d[k];
    else d[k] = expand(v, uid);
  }
  return d;
}

/** What a case changes, short enough for a test name. */
function describeChange(change) {
  const text = JSON.stringify(change);
  return text === '{}' ? 'the base document' : text.length > 90 ? `${text.slice(0, 90)}…` : text;
}

const T0 = Timestamp.fromDate(new Date('2026-01-01T00:00:00Z'));
const stored = (uid, following = [{ owner: UID.other }]) => ({ owner: uid, following, hidden_sharers: [], accepted_sharers: [], updated: T0 });
const owners = (n, from = 0) => Array.from({ length: n }, (_, i) => ({ owner: `o${from + i}` }));

describe('card_sources', () => {
  let h;
  let n = 0;
  /** A user of their own for each write test: the document's id is its writer's uid. */
  const newUser = () => `src-${++n}`;
  const seeded = Array.from({ length: 12 }, () => newUser());
  /** Stored documents of the users whose tests write over one. */
  const docs = { [`${C.card_sources}/${UID.owner}`]: stored(UID.owner) };
  const storedFor = (uid, following) => { docs[`${C.card_sources}/${uid}`] = stored(uid, following); return uid; };

  before(async () => {
    for (const uid of seeded) storedFor(uid);
    h = await setUp('demo-rules-card-sources', docs);
  });
  after(() => h.tearDown());

  const sources = (actor, uid) => doc(h.db[actor], C.card_sources, uid);
  const as = (uid) => doc(h.env.authenticatedContext(uid).firestore(), C.card_sources, uid);

  // --- reads -------------------------------------------------------------------
  test('allow: owner gets own card sources', async () => {
    const snap = await expectFound(sources('owner', UID.owner));
    assert.deepEqual(snap.data().following, [{ owner: UID.other }]);
  });
  test('allow: other user gets own missing card sources and sees not-found', () => expectMissing(sources('other', UID.other)));
  test('allow: admin gets the owner\'s card sources', async () => { await expectFound(sources('admin', UID.owner)); });
  test('deny: other user gets the owner\'s card sources', () => assertFails(getDoc(sources('other', UID.owner))));
  test('deny: signed-out visitor gets the owner\'s card sources', () => assertFails(getDoc(sources('signedOut', UID.owner))));
  test('deny: non-admin with an admin token claim gets the owner\'s card sources',
    () => assertFails(getDoc(sources('notAdmin', UID.owner))));
  test('deny: owner gets another user\'s missing card sources', () => assertFails(getDoc(sources('owner', UID.viewer))));
  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`deny: ${label} lists card sources`, () => assertFails(getDocs(collection(h.db[actor], C.card_sources))));
  }
  test('deny: owner lists card sources filtered on their own uid',
    () => assertFails(getDocs(query(collection(h.db.owner, C.card_sources), where('owner', '==', UID.owner)))));

  // --- every shape case, as a new document of its writer (or over one holding -----
  // --- all its followed sources but the last, where one write may not add them all)
  for (const { change, bad } of TABLE.cases) {
    const uid = newUser();
    const { following } = caseDoc(change, uid);
    const over = Array.isArray(following) && following.length > L.following_added_max;
    if (over) storedFor(uid, following.slice(0, -1));
    const name = `a user ${over ? 'adds to' : 'creates'} own card sources ${describeChange(change)}`;
    if (bad === null) test(`allow: ${name}`, () => assertSucceeds(setDoc(as(uid), caseDoc(change, uid))));
    else test(`deny: ${name} (${bad})`, () => assertFails(setDoc(as(uid), caseDoc(change, uid))));
  }

  // --- how many followed sources one write adds: each is checked --------------------
  test(`allow: a user creates own card sources following ${L.following_added_max} owners at once`, () => {
    const uid = newUser();
    return assertSucceeds(setDoc(as(uid), caseDoc({ following: owners(L.following_added_max) }, uid)));
  });
  test(`deny: a user creates own card sources following ${L.following_added_max + 1} owners at once`, () => {
    const uid = newUser();
    return assertFails(setDoc(as(uid), caseDoc({ following: owners(L.following_added_max + 1) }, uid)));
  });
  {
    const uid = storedFor(newUser(), owners(5));
    test(`deny: a user adds ${L.following_added_max + 1} followed owners at once`,
      () => assertFails(setDoc(as(uid), caseDoc({ following: [...owners(5), ...owners(L.following_added_max + 1, 5)] }, uid))));
  }
  {
    const uid = storedFor(newUser(), owners(L.following_max - 5));
    test(`allow: a user adds 5 followed owners up to ${L.following_max}, keeping the stored ones`,
      () => assertSucceeds(setDoc(as(uid), caseDoc({ following: [...owners(L.following_max - 5), ...owners(5, 100)] }, uid))));
  }
  {
    const uid = storedFor(newUser(), owners(3));
    test('allow: a user unfollows owners, keeping the rest', () => assertSucceeds(setDoc(as(uid), caseDoc({ following: owners(1, 1) }, uid))));
  }
  {
    const uid = storedFor(newUser(), owners(3));
    test('deny: a user keeps the stored followed owners and adds one without an owner',
      () => assertFails(setDoc(as(uid), caseDoc({ following: [...owners(3), { tag: 'git' }] }, uid))));
  }
  test('deny: a user creates own card sources with a past updated', () => {
    const uid = newUser();
    return assertFails(setDoc(as(uid), { ...caseDoc({}, uid), updated: T0 }));
  });
  test('deny: a user creates own card sources with a future updated', () => {
    const uid = newUser();
    return assertFails(setDoc(as(uid), { ...caseDoc({}, uid), updated: Timestamp.fromDate(new Date('2100-01-01T00:00:00Z')) }));
  });

  // --- updates and deletes ----------------------------------------------------
  test('allow: a user rewrites own card sources whole', () => {
    const uid = seeded[0];
    return assertSucceeds(setDoc(as(uid), caseDoc({}, uid)));
  });
  test('allow: a user hides a sharer, updated the time of the write', () => assertSucceeds(
    updateDoc(as(seeded[1]), { hidden_sharers: [UID.viewer], updated: serverTimestamp() })));
  test('deny: a user hides a sharer keeping the old updated',
    () => assertFails(updateDoc(as(seeded[2]), { hidden_sharers: [UID.viewer] })));
  test('allow: a user accepts a sharer, updated the time of the write', () => assertSucceeds(
    updateDoc(as(seeded[7]), { accepted_sharers: [UID.viewer], updated: serverTimestamp() })));
  test('allow: a user stops an accepted sharer: out of accepted, into hidden, in one write', async () => {
    await assertSucceeds(updateDoc(as(seeded[8]), { accepted_sharers: [UID.viewer], updated: serverTimestamp() }));
    return assertSucceeds(updateDoc(as(seeded[8]), { accepted_sharers: [], hidden_sharers: [UID.viewer], updated: serverTimestamp() }));
  });
  test('deny: a user stops a sharer still accepted', () => assertFails(
    updateDoc(as(seeded[9]), { accepted_sharers: [UID.viewer], hidden_sharers: [UID.viewer], updated: serverTimestamp() })));
  test(`deny: a user accepts ${L.accepted_sharers_max + 1} sharers`, () => assertFails(updateDoc(as(seeded[10]),
    { accepted_sharers: Array.from({ length: L.accepted_sharers_max + 1 }, (_, i) => `s${i}`), updated: serverTimestamp() })));
  test('deny: a user adds a field to own card sources',
    () => assertFails(updateDoc(as(seeded[3]), { note: 'x', updated: serverTimestamp() })));
  test('deny: a user gives own card sources another owner',
    () => assertFails(updateDoc(as(seeded[4]), { owner: UID.other, updated: serverTimestamp() })));
  test('deny: a user follows a non-map', () => assertFails(
    updateDoc(as(seeded[5]), { following: [{ owner: UID.other }, 'carol'], updated: serverTimestamp() })));
  test('allow: a user deletes own card sources', () => assertSucceeds(deleteDoc(as(seeded[6]))));
  for (const [actor, label] of Object.entries(ACTORS)) {
    if (actor === 'owner') continue;
    test(`deny: ${label} creates card sources for the owner`,
      () => assertFails(setDoc(sources(actor, UID.viewer), caseDoc({}, UID.viewer))));
    test(`deny: ${label} rewrites the owner's card sources`,
      () => assertFails(setDoc(sources(actor, UID.owner), caseDoc({}, UID.owner))));
    test(`deny: ${label} deletes the owner's card sources`, () => assertFails(deleteDoc(sources(actor, UID.owner))));
  }
  test('deny: a user creates card sources under another uid, owned by themself', () => {
    const uid = newUser();
    return assertFails(setDoc(doc(h.env.authenticatedContext(uid).firestore(), C.card_sources, newUser()), caseDoc({}, uid)));
  });
});
