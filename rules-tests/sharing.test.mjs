// Chats shared with people (issue 14): a viewer (uid in chats/{id}.viewers)
// reads the chat, its messages and chunks as a visitor of a published chat
// does, lists "Shared with me" with exactly viewers array-contains own uid,
// writes nothing; an ex-viewer, another user and a signed-out visitor read
// nothing of an unpublished shared chat. chat_authors/{id} (the author chip's
// name): the owner, viewers, admins; anyone only while the chat is published
// and `shown`.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFails } from '@firebase/rules-unit-testing';
import {
  arrayUnion, deleteDoc, getDoc, getDocs, query, setDoc, updateDoc, where,
} from 'firebase/firestore';
import {
  C, MESSAGE_KINDS, UID, authorDoc, backgroundDoc, chatDoc, chatPrivateDoc, collection, doc, expectFound,
  firstSnapshot, fixtures, listIds, setUp, snapshotAfter,
} from './helpers.mjs';

const SHARED = 'chat-shared';
const OTHER_SHARED = 'chat-shared-with-someone-else';
const PUBLISHED_SHOWN = 'chat-published-author-shown';
const PUBLISHED_HIDDEN = 'chat-published-author-hidden';
const UNPUBLISHED_SHOWN = 'chat-unpublished-author-shown';
const w = fixtures();
const shared = (over = {}) => chatDoc({ viewers: [UID.chatViewer, 'someone'], ...over });

/** Who is who for a chat shared with chatViewer, from which exViewer was removed. */
const NOT_READERS = { exViewer: 'ex-viewer', other: 'other user', signedOut: 'signed-out visitor' };

let h;

describe('sharing', () => {
  before(async () => {
    h = await setUp('demo-rules-sharing', {
      [`${C.chats}/${SHARED}`]: shared(),
      [`${C.chat_private}/${SHARED}`]: chatPrivateDoc(),
      [`${C.chat_backgrounds}/${SHARED}`]: backgroundDoc(SHARED),
      [`${C.chats}/${OTHER_SHARED}`]: chatDoc({ viewers: [UID.exViewer] }),
      [`${C.chat_authors}/${SHARED}`]: authorDoc(),
      [`${C.chats}/${PUBLISHED_SHOWN}`]: chatDoc({ published: true }),
      [`${C.chat_authors}/${PUBLISHED_SHOWN}`]: authorDoc({ shown: true }),
      [`${C.chats}/${PUBLISHED_HIDDEN}`]: chatDoc({ published: true }),
      [`${C.chat_authors}/${PUBLISHED_HIDDEN}`]: authorDoc(),
      [`${C.chats}/${UNPUBLISHED_SHOWN}`]: chatDoc(),
      [`${C.chat_authors}/${UNPUBLISHED_SHOWN}`]: authorDoc({ shown: true }),
      ...w.docs,
    });
  });
  after(() => h.tearDown());

  const chat = (actor, id) => doc(h.db[actor], C.chats, id);
  const chats = (actor) => collection(h.db[actor], C.chats);
  const author = (actor, id) => doc(h.db[actor], C.chat_authors, id);

  // --- the shared chat itself ------------------------------------------------
  test('allow: viewer gets an unpublished chat shared with them', async () => { await expectFound(chat('chatViewer', SHARED)); });
  test('allow: viewer listens to an unpublished chat shared with them', async () => {
    const snap = await firstSnapshot(chat('chatViewer', SHARED));
    assert.deepEqual(snap.data().viewers, [UID.chatViewer, 'someone']);
  });
  for (const [actor, label] of Object.entries(NOT_READERS)) {
    test(`deny: ${label} gets an unpublished chat shared with others`, () => assertFails(getDoc(chat(actor, SHARED))));
  }
  test('deny: viewer gets an unpublished chat shared with someone else',
    () => assertFails(getDoc(chat('chatViewer', OTHER_SHARED))));

  // --- "Shared with me": exactly viewers array-contains own uid ----------------
  test('allow: viewer lists chats where viewers array-contains own uid', async () => {
    const snap = await getDocs(query(chats('chatViewer'), where('viewers', 'array-contains', UID.chatViewer)));
    const ids = snap.docs.map((d) => d.id);
    assert.ok(ids.includes(SHARED) && !ids.includes(OTHER_SHARED) && !ids.includes(PUBLISHED_SHOWN), String(ids));
    assert.ok(snap.docs.every((d) => d.data().viewers.includes(UID.chatViewer)));
  });
  test('allow: ex-viewer lists chats shared with them and finds only those', async () => {
    const ids = await listIds(query(chats('exViewer'), where('viewers', 'array-contains', UID.exViewer)));
    assert.deepEqual(ids, [OTHER_SHARED]);
  });
  test('deny: viewer lists chats where viewers array-contains another uid',
    () => assertFails(getDocs(query(chats('chatViewer'), where('viewers', 'array-contains', UID.exViewer)))));
  test('deny: other user lists chats where viewers array-contains the viewer',
    () => assertFails(getDocs(query(chats('other'), where('viewers', 'array-contains', UID.chatViewer)))));
  test('deny: signed-out visitor lists chats where viewers array-contains the viewer',
    () => assertFails(getDocs(query(chats('signedOut'), where('viewers', 'array-contains', UID.chatViewer)))));
  test('deny: viewer lists chats without a filter', () => assertFails(getDocs(chats('chatViewer'))));
  test('deny: viewer lists chats filtered on the owner',
    () => assertFails(getDocs(query(chats('chatViewer'), where('owner', '==', UID.owner)))));
  test('deny: viewer lists chats where viewers array-contains-any [own uid, another]',
    () => assertFails(getDocs(query(chats('chatViewer'),
      where('viewers', 'array-contains-any', [UID.chatViewer, UID.exViewer])))));

  // --- a viewer writes nothing ------------------------------------------------
  const fresh = (over = {}) => w.add(C.chats, shared(over), 'chat');
  {
    const id = fresh();
    test('deny: viewer publishes a chat shared with them', () => assertFails(updateDoc(chat('chatViewer', id), { published: true })));
  }
  {
    const id = fresh({ published: true });
    test('deny: viewer unpublishes a published chat shared with them',
      () => assertFails(updateDoc(chat('chatViewer', id), { published: false })));
  }
  {
    const id = fresh();
    test('deny: viewer removes themself from viewers', () => assertFails(updateDoc(chat('chatViewer', id), { viewers: ['someone'] })));
  }
  {
    const id = fresh();
    test('deny: viewer adds another user to viewers',
      () => assertFails(updateDoc(chat('chatViewer', id), { viewers: arrayUnion(UID.other) })));
  }
  {
    const id = fresh();
    test('deny: owner adds a viewer through the client', () => assertFails(updateDoc(chat('owner', id), { viewers: arrayUnion(UID.other) })));
  }
  {
    const id = w.add(C.chats, chatDoc({ published: true }), 'chat');
    test('deny: other user adds themself to the viewers of a published chat',
      () => assertFails(updateDoc(chat('other', id), { viewers: arrayUnion(UID.other) })));
  }
  {
    const id = fresh();
    test('deny: viewer deletes a chat shared with them', () => assertFails(deleteDoc(chat('chatViewer', id))));
  }
  test('deny: viewer creates a chat naming themself a viewer',
    () => assertFails(setDoc(chat('chatViewer', w.newId('new')), chatDoc({ viewers: [UID.chatViewer] }))));

  // --- what stays the owner's: chat_private, the background ----------------------
  test('deny: viewer gets the chat_private of a chat shared with them',
    () => assertFails(getDoc(doc(h.db.chatViewer, C.chat_private, SHARED))));
  test('deny: viewer gets the background of a chat shared with them',
    () => assertFails(getDoc(doc(h.db.chatViewer, C.chat_backgrounds, SHARED))));

  // --- removal revokes a listening viewer at once ----------------------------------
  {
    const id = fresh();
    test('deny: viewer keeps listening to a chat after being removed', { timeout: 15_000 },
      () => assertFails(snapshotAfter(chat('chatViewer', id),
        () => h.seed({ [`${C.chats}/${id}`]: shared({ viewers: ['someone'] }) }))));
  }

  // --- messages and chunks ------------------------------------------------------
  for (const kind of MESSAGE_KINDS) {
    const msgId = w.add(kind.name, kind.build(SHARED), 'msg');
    const ofChat = (actor, chatId) => query(collection(h.db[actor], kind.name), where('chat', '==', chatId));
    test(`allow: viewer gets a ${kind.name} doc of a chat shared with them`,
      async () => { await expectFound(doc(h.db.chatViewer, kind.name, msgId)); });
    test(`allow: viewer listens to ${kind.name} of a chat shared with them`, async () => {
      const snap = await firstSnapshot(ofChat('chatViewer', SHARED));
      assert.ok(snap.docs.some((d) => d.id === msgId));
    });
    for (const [actor, label] of Object.entries(NOT_READERS)) {
      test(`deny: ${label} gets a ${kind.name} doc of an unpublished chat shared with others`,
        () => assertFails(getDoc(doc(h.db[actor], kind.name, msgId))));
      test(`deny: ${label} lists ${kind.name} of an unpublished chat shared with others`,
        () => assertFails(getDocs(ofChat(actor, SHARED))));
    }
    test(`deny: viewer writes a ${kind.name} doc of a chat shared with them`,
      () => assertFails(setDoc(doc(h.db.chatViewer, kind.name, w.newId('new')), kind.build(SHARED))));
    test(`deny: viewer edits a ${kind.name} doc of a chat shared with them`,
      () => assertFails(updateDoc(doc(h.db.chatViewer, kind.name, msgId), kind.changes)));
    const revoked = fresh();
    w.add(kind.name, kind.build(revoked), 'msg-revoked');
    test(`deny: viewer keeps listening to ${kind.name} of a chat after being removed`, { timeout: 15_000 },
      () => assertFails(snapshotAfter(ofChat('chatViewer', revoked), async () => {
        await h.seed({ [`${C.chats}/${revoked}`]: shared({ viewers: [] }) });
        await h.seed({ [`${kind.name}/${w.newId('msg-after')}`]: kind.build(revoked, { message_index: 2 }) });
      })));
  }

  // --- chat_authors: the author chip's name ------------------------------------------
  test('allow: owner gets the author doc of own chat', async () => { await expectFound(author('owner', SHARED)); });
  test('allow: viewer gets the author doc of a chat shared with them', async () => {
    assert.equal((await expectFound(author('chatViewer', SHARED))).data().name, 'Alice Author');
  });
  test('allow: admin gets an author doc', async () => { await expectFound(author('admin', SHARED)); });
  for (const [actor, label] of Object.entries(NOT_READERS)) {
    test(`deny: ${label} gets the author doc of an unpublished shared chat`, () => assertFails(getDoc(author(actor, SHARED))));
    test(`deny: ${label} gets the author doc of an unpublished chat whose chip is shown`,
      () => assertFails(getDoc(author(actor, UNPUBLISHED_SHOWN))));
  }
  for (const actor of ['other', 'signedOut']) {
    const label = NOT_READERS[actor];
    test(`allow: ${label} gets the author doc of a published chat whose chip is shown`,
      async () => { await expectFound(author(actor, PUBLISHED_SHOWN)); });
    test(`deny: ${label} gets the author doc of a published chat whose chip is hidden (the default)`,
      () => assertFails(getDoc(author(actor, PUBLISHED_HIDDEN))));
  }
  for (const actor of ['owner', 'chatViewer', 'other', 'signedOut']) {
    test(`deny: ${actor} gets a missing author doc`, () => assertFails(getDoc(author(actor, 'no-such-chat'))));
    test(`deny: ${actor} lists author docs`, () => assertFails(getDocs(collection(h.db[actor], C.chat_authors))));
  }
  {
    const id = w.add(C.chat_authors, authorDoc(), 'author');
    w.docs[`${C.chats}/${id}`] = chatDoc({ published: true });
    test('deny: owner shows their name through the client', () => assertFails(updateDoc(author('owner', id), { shown: true })));
    test('deny: owner renames themself through the client', () => assertFails(updateDoc(author('owner', id), { name: 'The CEO' })));
  }
  test('deny: viewer writes an author doc', () => assertFails(setDoc(author('chatViewer', w.newId('a')), authorDoc())));
  {
    const id = w.add(C.chats, shared({ published: true }), 'chat');
    w.docs[`${C.chat_authors}/${id}`] = authorDoc({ shown: true });
    test('deny: signed-out visitor keeps reading the author doc after the owner hides it', { timeout: 15_000 },
      () => assertFails(snapshotAfter(author('signedOut', id),
        () => h.seed({ [`${C.chat_authors}/${id}`]: authorDoc({ shown: false }) }))));
  }
});
