// chats: the owner reads and lists their own, flips `published` and
// `look_further` and nothing else; anyone reads a published chat by its id; admins read and list all.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFails, assertSucceeds } from '@firebase/rules-unit-testing';
import {
  Timestamp, collectionGroup, deleteDoc, deleteField, getDocs, or, query, setDoc, updateDoc, where,
} from 'firebase/firestore';
import {
  ACTORS, C, UID, chatDoc, collection, doc, expectFound, expectMissing, fixtures, listIds, schemaFields,
  setUp, snapshotAfter, viewerDoc, viewerId,
} from './helpers.mjs';

/** A different value of the same type, for "may not change <field>" tests. */
function changed(field, value) {
  if (field === 'owner') return UID.other;
  if (value instanceof Timestamp) return Timestamp.fromMillis(value.toMillis() + 1000);
  if (Array.isArray(value)) return [...value, 'card-z'];
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'string') return `${value} (edited)`;
  if (typeof value === 'boolean') return !value;
  if (value && typeof value === 'object') return { ...value, description: 'edited' };
  throw new Error(`no changed value for ${field}`);
}

describe('chats', () => {
  let h;
  const unpub = 'chat-unpublished';
  const pub = 'chat-published';
  const bobs = 'chat-of-bob';
  const w = fixtures();
  const freshChat = (over = {}) => w.add(C.chats, chatDoc(over), 'chat');

  before(async () => {
    h = await setUp('demo-rules-chats', {
      [`${C.chats}/${unpub}`]: chatDoc(),
      [`${C.chats}/${pub}`]: chatDoc({ published: true }),
      [`${C.chats}/${bobs}`]: chatDoc({ owner: UID.other, published: true }),
      ...w.docs,
    });
  });
  after(() => h.tearDown());

  const chat = (actor, id) => doc(h.db[actor], C.chats, id);
  const chats = (actor) => collection(h.db[actor], C.chats);

  // --- get -----------------------------------------------------------------
  test('allow: owner gets own unpublished chat', async () => { await expectFound(chat('owner', unpub)); });
  test('allow: owner gets own published chat', async () => { await expectFound(chat('owner', pub)); });
  test('deny: other user gets an unpublished chat', () => assertFails(expectFound(chat('other', unpub))));
  test('allow: other user gets a published chat', async () => { await expectFound(chat('other', pub)); });
  test('deny: signed-out visitor gets an unpublished chat', () => assertFails(expectFound(chat('signedOut', unpub))));
  test('allow: signed-out visitor gets a published chat', async () => { await expectFound(chat('signedOut', pub)); });
  test('allow: admin gets an unpublished chat', async () => { await expectFound(chat('admin', unpub)); });
  test('allow: admin gets a published chat', async () => { await expectFound(chat('admin', pub)); });
  test('deny: non-admin with an admin token claim gets an unpublished chat',
    () => assertFails(expectFound(chat('notAdmin', unpub))));
  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`allow: ${label} gets a missing chat and sees not-found`, () => expectMissing(chat(actor, 'no-such-chat')));
  }

  // --- list ----------------------------------------------------------------
  test('allow: owner lists own chats filtered on owner', async () => {
    const snap = await getDocs(query(chats('owner'), where('owner', '==', UID.owner)));
    const ids = snap.docs.map((d) => d.id);
    assert.ok(ids.includes(pub) && ids.includes(unpub) && !ids.includes(bobs), String(ids));
  });
  test('deny: owner lists chats without a filter', () => assertFails(getDocs(chats('owner'))));
  test('deny: owner lists chats filtered on another user',
    () => assertFails(getDocs(query(chats('owner'), where('owner', '==', UID.other)))));
  test('deny: owner lists chats filtered on published only',
    () => assertFails(getDocs(query(chats('owner'), where('published', '==', true)))));
  test('deny: other user lists the owner\'s chats filtered on owner',
    () => assertFails(getDocs(query(chats('other'), where('owner', '==', UID.owner)))));
  test('deny: other user lists published chats',
    () => assertFails(getDocs(query(chats('other'), where('published', '==', true)))));
  test('deny: other user lists chats without a filter', () => assertFails(getDocs(chats('other'))));
  test('deny: signed-out visitor lists chats without a filter', () => assertFails(getDocs(chats('signedOut'))));
  test('deny: signed-out visitor lists published chats',
    () => assertFails(getDocs(query(chats('signedOut'), where('published', '==', true)))));
  test('deny: signed-out visitor lists chats filtered on owner',
    () => assertFails(getDocs(query(chats('signedOut'), where('owner', '==', UID.owner)))));
  test('allow: admin lists all chats without a filter', async () => {
    const ids = await listIds(chats('admin'));
    assert.ok([bobs, pub, unpub].every((id) => ids.includes(id)), String(ids));
  });
  test('allow: admin lists chats filtered on owner', async () => {
    const ids = await listIds(query(chats('admin'), where('owner', '==', UID.other)));
    assert.ok(ids.includes(bobs) && !ids.includes(pub), String(ids));
  });
  test('deny: non-admin with an admin token claim lists all chats', () => assertFails(getDocs(chats('notAdmin'))));

  // --- list with in / or / array-contains-any, and collection groups -----------
  test('allow: owner lists own chats filtered on owner in [own uid]', async () => {
    const ids = await listIds(query(chats('owner'), where('owner', 'in', [UID.owner])));
    assert.ok(ids.includes(pub) && ids.includes(unpub) && !ids.includes(bobs), String(ids));
  });
  test('deny: owner lists chats filtered on owner in [own uid, another uid]',
    () => assertFails(getDocs(query(chats('owner'), where('owner', 'in', [UID.owner, UID.other])))));
  test('deny: other user lists chats filtered on owner in [the owner]',
    () => assertFails(getDocs(query(chats('other'), where('owner', 'in', [UID.owner])))));
  test('deny: signed-out visitor lists chats filtered on published in [true]',
    () => assertFails(getDocs(query(chats('signedOut'), where('published', 'in', [true])))));
  test('deny: owner lists own chats or published ones',
    () => assertFails(getDocs(query(chats('owner'), or(where('owner', '==', UID.owner), where('published', '==', true))))));
  test('deny: other user lists own chats or the owner\'s',
    () => assertFails(getDocs(query(chats('other'), or(where('owner', '==', UID.other), where('owner', '==', UID.owner))))));
  test('deny: signed-out visitor lists chats that are published or the owner\'s',
    () => assertFails(getDocs(query(chats('signedOut'), or(where('published', '==', true), where('owner', '==', UID.owner))))));
  for (const actor of ['owner', 'other', 'signedOut']) {
    test(`deny: ${ACTORS[actor]} lists chats filtered on owner array-contains-any`,
      () => assertFails(getDocs(query(chats(actor), where('owner', 'array-contains-any', [UID.owner])))));
  }
  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`deny: ${label} queries chats through a collection group filtered on owner`,
      () => assertFails(getDocs(query(collectionGroup(h.db[actor], C.chats), where('owner', '==', UID.owner)))));
    test(`deny: ${label} queries published chats through a collection group`,
      () => assertFails(getDocs(query(collectionGroup(h.db[actor], C.chats), where('published', '==', true)))));
  }

  // --- unpublishing revokes a reader at once, even one listening -------------
  for (const actor of ['other', 'signedOut']) {
    const id = freshChat({ published: true });
    test(`deny: ${ACTORS[actor]} keeps listening to a chat its owner unpublishes`, { timeout: 15_000 },
      () => assertFails(snapshotAfter(chat(actor, id), () => updateDoc(chat('owner', id), { published: false }))));
  }
  {
    const id = freshChat({ published: true });
    test('allow: owner keeps listening to own chat while unpublishing it', { timeout: 15_000 }, async () => {
      const snap = await snapshotAfter(chat('owner', id), () => updateDoc(chat('owner', id), { published: false }));
      assert.equal(snap.data().published, false);
    });
  }

  // --- update: the owner's `published` flag and nothing else -----------------
  /** A test against its own freshly seeded chat: `body(id)`. */
  function onFreshChat(name, over, body) {
    const id = freshChat(over);
    test(name, () => body(id));
  }

  onFreshChat('allow: owner publishes own chat', {}, async (id) => {
    await assertSucceeds(updateDoc(chat('owner', id), { published: true }));
    assert.equal((await h.peek(`${C.chats}/${id}`)).published, true);
  });
  onFreshChat('allow: owner unpublishes own published chat', { published: true }, async (id) => {
    await assertSucceeds(updateDoc(chat('owner', id), { published: false }));
    assert.equal((await h.peek(`${C.chats}/${id}`)).published, false);
  });
  onFreshChat('allow: owner publishes through a merge set of published alone', {}, async (id) => {
    await assertSucceeds(setDoc(chat('owner', id), { published: true }, { merge: true }));
    assert.equal((await h.peek(`${C.chats}/${id}`)).published, true);
  });
  for (const bad of ['true', 1, null]) {
    onFreshChat(`deny: owner sets published to non-bool ${JSON.stringify(bad)}`, {},
      (id) => assertFails(updateDoc(chat('owner', id), { published: bad })));
  }
  onFreshChat('allow: owner turns look_further on', {}, async (id) => {
    await assertSucceeds(updateDoc(chat('owner', id), { look_further: true }));
    assert.equal((await h.peek(`${C.chats}/${id}`)).look_further, true);
  });
  onFreshChat('allow: owner turns look_further off', { look_further: true }, async (id) => {
    await assertSucceeds(updateDoc(chat('owner', id), { look_further: false }));
    assert.equal((await h.peek(`${C.chats}/${id}`)).look_further, false);
  });
  {
    // a chat made before look_further existed holds none
    const before = chatDoc();
    delete before.look_further;
    const on = w.add(C.chats, before, 'chat');
    test('allow: owner turns look_further on on a chat made before it existed',
      async () => { await assertSucceeds(updateDoc(chat('owner', on), { look_further: true })); });
    const published = w.add(C.chats, before, 'chat');
    test('allow: owner publishes a chat made before look_further existed',
      async () => { await assertSucceeds(updateDoc(chat('owner', published), { published: true })); });
  }
  for (const bad of ['true', 1, null]) {
    onFreshChat(`deny: owner sets look_further to non-bool ${JSON.stringify(bad)}`, {},
      (id) => assertFails(updateDoc(chat('owner', id), { look_further: bad })));
  }
  onFreshChat('deny: owner turns look_further on together with title', {},
    (id) => assertFails(updateDoc(chat('owner', id), { look_further: true, title: 'new title' })));
  onFreshChat('deny: owner turns look_further on on another user\'s chat', { owner: UID.other },
    (id) => assertFails(updateDoc(chat('owner', id), { look_further: true })));
  for (const actor of ['other', 'signedOut', 'admin']) {
    onFreshChat(`deny: ${ACTORS[actor]} turns look_further on on the owner's chat`, {},
      (id) => assertFails(updateDoc(chat(actor, id), { look_further: true })));
  }
  {
    const shared = freshChat();
    w.docs[`${C.chat_viewers}/${viewerId(shared, UID.chatViewer)}`] = viewerDoc(shared, UID.chatViewer);
    test('deny: a viewer of the chat turns look_further on',
      () => assertFails(updateDoc(chat('chatViewer', shared), { look_further: true })));
  }
  for (const field of schemaFields('Chat').filter((f) => f !== 'published' && f !== 'look_further')) {
    onFreshChat(`deny: owner updates ${field}`, {},
      (id) => assertFails(updateDoc(chat('owner', id), { [field]: changed(field, chatDoc()[field]) })));
  }
  onFreshChat('deny: owner updates published together with title', {},
    (id) => assertFails(updateDoc(chat('owner', id), { published: true, title: 'new title' })));
  onFreshChat('deny: owner publishes and adds a new field', {},
    (id) => assertFails(updateDoc(chat('owner', id), { published: true, background: 'smuggled' })));
  onFreshChat('deny: owner removes a field', {},
    (id) => assertFails(updateDoc(chat('owner', id), { title: deleteField() })));
  onFreshChat('deny: owner overwrites the chat with published alone', {},
    (id) => assertFails(setDoc(chat('owner', id), { published: true })));
  onFreshChat('deny: owner updates published on another user\'s chat', { owner: UID.other },
    (id) => assertFails(updateDoc(chat('owner', id), { published: true })));
  for (const actor of ['other', 'signedOut', 'admin']) {
    onFreshChat(`deny: ${ACTORS[actor]} publishes the owner's chat`, {},
      (id) => assertFails(updateDoc(chat(actor, id), { published: true })));
    onFreshChat(`deny: ${ACTORS[actor]} unpublishes the owner's published chat`, { published: true },
      (id) => assertFails(updateDoc(chat(actor, id), { published: false })));
  }

  // --- create and delete: the server's job ------------------------------------
  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`deny: ${label} creates a chat`, () => {
      const owner = actor === 'signedOut' ? UID.owner : UID[actor];
      return assertFails(setDoc(chat(actor, w.newId('new')), chatDoc({ owner })));
    });
    onFreshChat(`deny: ${label} deletes the owner's unpublished chat`, {},
      (id) => assertFails(deleteDoc(chat(actor, id))));
    onFreshChat(`deny: ${label} deletes the owner's published chat`, { published: true },
      (id) => assertFails(deleteDoc(chat(actor, id))));
  }
  test('deny: owner creates a missing chat through a merge set of published', () =>
    assertFails(setDoc(chat('owner', w.newId('new')), { published: true }, { merge: true })));
});
