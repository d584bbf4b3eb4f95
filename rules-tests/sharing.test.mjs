// Chats shared with people: a viewer (chat_viewers/{chat}_{uid} exists)
// reads the chat, its messages and chunks as a visitor of a published chat
// does, lists "Shared with me" through their own viewer docs, writes nothing;
// an ex-viewer, another user and a signed-out visitor read nothing of an
// unpublished shared chat, and no visitor of a published one learns whom it
// is shared with (the chat names no one; viewer docs are the owner's and the
// viewer's own). chat_authors/{id} (the author chip's
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
  firstSnapshot, fixtures, listIds, setUp, snapshotAfter, viewerDoc, viewerId,
} from './helpers.mjs';

const SHARED = 'chat-shared';
const OTHER_SHARED = 'chat-shared-with-someone-else';
const PUBLISHED_SHOWN = 'chat-published-author-shown';
const PUBLISHED_HIDDEN = 'chat-published-author-hidden';
const UNPUBLISHED_SHOWN = 'chat-unpublished-author-shown';
const PUBLISHED_SHARED = 'chat-published-shared';
const w = fixtures();
/** The docs of chat `id` shared with `viewers` (the chat itself, then one viewer doc each). */
const sharedDocs = (id, over = {}, viewers = [UID.chatViewer, 'someone']) => ({
  [`${C.chats}/${id}`]: chatDoc(over),
  ...Object.fromEntries(viewers.map((v) => [`${C.chat_viewers}/${viewerId(id, v)}`, viewerDoc(id, v)])),
});
/** A new chat shared with chatViewer among the fixtures; returns its id. */
const fresh = (over = {}) => {
  const id = w.newId('chat');
  Object.assign(w.docs, sharedDocs(id, over));
  return id;
};

/** Who is who for a chat shared with chatViewer, from which exViewer was removed. */
const NOT_READERS = { exViewer: 'ex-viewer', other: 'other user', signedOut: 'signed-out visitor' };

let h;

describe('sharing', () => {
  before(async () => {
    h = await setUp('demo-rules-sharing', {
      ...sharedDocs(SHARED),
      [`${C.chat_private}/${SHARED}`]: chatPrivateDoc(),
      [`${C.chat_backgrounds}/${SHARED}`]: backgroundDoc(SHARED),
      ...sharedDocs(OTHER_SHARED, {}, [UID.exViewer]),
      [`${C.chat_authors}/${SHARED}`]: authorDoc(),
      [`${C.chats}/${PUBLISHED_SHOWN}`]: chatDoc({ published: true }),
      [`${C.chat_authors}/${PUBLISHED_SHOWN}`]: authorDoc({ shown: true }),
      [`${C.chats}/${PUBLISHED_HIDDEN}`]: chatDoc({ published: true }),
      [`${C.chat_authors}/${PUBLISHED_HIDDEN}`]: authorDoc(),
      [`${C.chats}/${UNPUBLISHED_SHOWN}`]: chatDoc(),
      [`${C.chat_authors}/${UNPUBLISHED_SHOWN}`]: authorDoc({ shown: true }),
      ...sharedDocs(PUBLISHED_SHARED, { published: true }),
      ...w.docs,
    });
  });
  after(() => h.tearDown());

  const chat = (actor, id) => doc(h.db[actor], C.chats, id);
  const chats = (actor) => collection(h.db[actor], C.chats);
  const author = (actor, id) => doc(h.db[actor], C.chat_authors, id);
  const viewer = (actor, id) => doc(h.db[actor], C.chat_viewers, id);
  const viewers = (actor) => collection(h.db[actor], C.chat_viewers);
  /** What shareChat's removal does: chatViewer's viewer doc of `id` goes. */
  const revoke = (id) => h.env.withSecurityRulesDisabled(
    (ctx) => deleteDoc(doc(ctx.firestore(), C.chat_viewers, viewerId(id, UID.chatViewer))));

  // --- the shared chat itself ------------------------------------------------
  test('allow: viewer gets an unpublished chat shared with them', async () => { await expectFound(chat('chatViewer', SHARED)); });
  test('allow: viewer listens to an unpublished chat shared with them, which names no viewer', async () => {
    const snap = await firstSnapshot(chat('chatViewer', SHARED));
    assert.equal(snap.data().viewers, undefined);
  });
  for (const [actor, label] of Object.entries(NOT_READERS)) {
    test(`deny: ${label} gets an unpublished chat shared with others`, () => assertFails(getDoc(chat(actor, SHARED))));
  }
  test('deny: viewer gets an unpublished chat shared with someone else',
    () => assertFails(getDoc(chat('chatViewer', OTHER_SHARED))));
  {
    // A viewer doc under the right id that names another chat grants nothing.
    const id = w.add(C.chats, chatDoc(), 'chat');
    w.docs[`${C.chat_viewers}/${viewerId(id, UID.chatViewer)}`] = viewerDoc('chat-elsewhere', UID.chatViewer);
    test('deny: viewer gets a chat through a viewer doc of another chat', () => assertFails(getDoc(chat('chatViewer', id))));
  }

  // --- a published shared chat names no one it is shared with ------------------
  for (const actor of ['other', 'signedOut']) {
    const label = NOT_READERS[actor];
    test(`allow: ${label} reads a published shared chat, which names none of its viewers`, async () => {
      const data = (await expectFound(chat(actor, PUBLISHED_SHARED))).data();
      assert.equal(data.viewers, undefined);
      assert.ok(!JSON.stringify(data).includes(UID.chatViewer), JSON.stringify(data));
    });
    test(`deny: ${label} gets a viewer doc of a published shared chat`,
      () => assertFails(getDoc(viewer(actor, viewerId(PUBLISHED_SHARED, UID.chatViewer)))));
    test(`deny: ${label} lists the viewer docs of a published shared chat`,
      () => assertFails(getDocs(query(viewers(actor), where('chat', '==', PUBLISHED_SHARED)))));
  }

  // --- a chat shared before chat_viewers, its `viewers` list not yet migrated -----
  {
    const id = w.add(C.chats, { ...chatDoc({ published: true }), viewers: [UID.chatViewer] }, 'chat');
    w.docs[`${C.chat_viewers}/${viewerId(id, UID.chatViewer)}`] = viewerDoc(id, UID.chatViewer);
    for (const actor of ['other', 'signedOut', 'chatViewer']) {
      const label = NOT_READERS[actor] ?? 'viewer';
      test(`deny: ${label} gets a published chat that still holds a viewers list`,
        () => assertFails(getDoc(chat(actor, id))));
    }
    for (const actor of ['owner', 'admin']) {
      test(`allow: ${actor} gets a chat of the owner's that still holds a viewers list`, async () => { await expectFound(chat(actor, id)); });
    }
  }

  // --- chat_viewers: the viewer's own, the owner's, admins' ---------------------
  test('allow: viewer lists their own viewer docs ("Shared with me") and finds only theirs', async () => {
    const ids = await listIds(query(viewers('chatViewer'), where('viewer', '==', UID.chatViewer)));
    assert.ok(ids.includes(viewerId(SHARED, UID.chatViewer)) && !ids.includes(viewerId(OTHER_SHARED, UID.exViewer)), String(ids));
  });
  test('allow: viewer gets their own viewer doc', async () => {
    await expectFound(viewer('chatViewer', viewerId(SHARED, UID.chatViewer)));
  });
  test('allow: owner lists the viewer docs of own chat', async () => {
    const ids = await listIds(query(viewers('owner'), where('owner', '==', UID.owner), where('chat', '==', SHARED)));
    assert.deepEqual(ids, [viewerId(SHARED, 'someone'), viewerId(SHARED, UID.chatViewer)]);
  });
  test('allow: owner gets a viewer doc of own chat', async () => {
    await expectFound(viewer('owner', viewerId(SHARED, 'someone')));
  });
  test('allow: admin gets a viewer doc', async () => { await expectFound(viewer('admin', viewerId(SHARED, 'someone'))); });
  test('deny: viewer gets another viewer\'s doc of the same chat',
    () => assertFails(getDoc(viewer('chatViewer', viewerId(SHARED, 'someone')))));
  test('deny: viewer lists the viewer docs of a chat shared with them',
    () => assertFails(getDocs(query(viewers('chatViewer'), where('chat', '==', SHARED)))));
  test('deny: viewer lists viewer docs naming another uid',
    () => assertFails(getDocs(query(viewers('chatViewer'), where('viewer', '==', UID.exViewer)))));
  test('deny: viewer lists viewer docs without a filter', () => assertFails(getDocs(viewers('chatViewer'))));
  test('deny: other user lists the viewer docs of a chat filtered on its owner',
    () => assertFails(getDocs(query(viewers('other'), where('owner', '==', UID.owner)))));
  test('deny: ex-viewer gets their removed viewer doc',
    () => assertFails(getDoc(viewer('exViewer', viewerId(SHARED, UID.exViewer)))));
  for (const actor of ['owner', 'chatViewer', 'other']) {
    test(`deny: ${actor} writes a viewer doc`,
      () => assertFails(setDoc(viewer(actor, viewerId(SHARED, UID[actor])), viewerDoc(SHARED, UID[actor]))));
  }
  test('deny: viewer deletes their own viewer doc', () => assertFails(deleteDoc(viewer('chatViewer', viewerId(SHARED, UID.chatViewer)))));

  // --- chats are listed by their owner only -------------------------------------
  test('deny: viewer lists chats without a filter', () => assertFails(getDocs(chats('chatViewer'))));
  test('deny: viewer lists chats filtered on the owner',
    () => assertFails(getDocs(query(chats('chatViewer'), where('owner', '==', UID.owner)))));
  test('deny: viewer lists chats filtered on published',
    () => assertFails(getDocs(query(chats('chatViewer'), where('published', '==', true)))));

  // --- a viewer writes nothing ------------------------------------------------
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
    test('deny: owner adds a viewers list to a chat through the client',
      () => assertFails(updateDoc(chat('owner', id), { viewers: arrayUnion(UID.other) })));
  }
  {
    const id = fresh();
    test('deny: viewer deletes a chat shared with them', () => assertFails(deleteDoc(chat('chatViewer', id))));
  }
  test('deny: viewer creates a chat of their own',
    () => assertFails(setDoc(chat('chatViewer', w.newId('new')), chatDoc({ owner: UID.chatViewer }))));

  // --- what stays the owner's: chat_private, the background ----------------------
  test('deny: viewer gets the chat_private of a chat shared with them',
    () => assertFails(getDoc(doc(h.db.chatViewer, C.chat_private, SHARED))));
  test('deny: viewer gets the background of a chat shared with them',
    () => assertFails(getDoc(doc(h.db.chatViewer, C.chat_backgrounds, SHARED))));

  // --- removal: a listening viewer receives nothing new ---------------------------
  // Rules are re-checked when a listened-to document changes, not when the
  // viewer doc goes: the next change of the chat (a new message bumps it) is denied.
  {
    const id = fresh();
    test('deny: viewer receives a change of a chat after being removed', { timeout: 15_000 },
      () => assertFails(snapshotAfter(chat('chatViewer', id), async () => {
        await revoke(id);
        await h.seed({ [`${C.chats}/${id}`]: chatDoc({ message_count: 4 }) });
      })));
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
        await revoke(revoked);
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
    const id = fresh({ published: true });
    w.docs[`${C.chat_authors}/${id}`] = authorDoc({ shown: true });
    test('deny: signed-out visitor keeps reading the author doc after the owner hides it', { timeout: 15_000 },
      () => assertFails(snapshotAfter(author('signedOut', id),
        () => h.seed({ [`${C.chat_authors}/${id}`]: authorDoc({ shown: false }) }))));
  }
});
