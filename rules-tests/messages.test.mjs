// chat_messages and chat_messages_streaming: readable by whoever may read the
// parent chat (owner; anyone once published; admins), listed only with a
// where('chat', '==', id) filter; written by the server alone.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFails } from '@firebase/rules-unit-testing';
import {
  collectionGroup, deleteDoc, getDocs, or, query, setDoc, updateDoc, where,
} from 'firebase/firestore';
import {
  ACTORS, C, MESSAGE_KINDS, UID, chatDoc, collection, doc, expectFound, expectMissing, firstSnapshot,
  fixtures, setUp, snapshotAfter,
} from './helpers.mjs';

const READERS = {
  unpublished: { owner: true, other: false, signedOut: false, admin: true },
  published: { owner: true, other: true, signedOut: true, admin: true },
};

const chatIds = { unpublished: 'chat-unpublished', published: 'chat-published' };
const goneChat = 'chat-deleted';
const w = fixtures();
const seeds = {
  [`${C.chats}/${chatIds.unpublished}`]: chatDoc(),
  [`${C.chats}/${chatIds.published}`]: chatDoc({ published: true }),
  [`${C.chats}/chat-of-bob`]: chatDoc({ owner: UID.other }),
  // A published chat whose id a number would name, for a message whose `chat` is that number.
  [`${C.chats}/5`]: chatDoc({ published: true }),
};

/** `chat` values that are not a chat id: the message belongs to no chat a reader may open. */
const BAD_CHAT = {
  missing: undefined,
  'a number': 5,
  'a list': [chatIds.published],
  'a map': { id: chatIds.published },
};

let h;

describe('messages', () => {
  // Runs after this describe body has registered every test's fixtures.
  before(async () => { h = await setUp('demo-rules-messages', { ...seeds, ...w.docs }); });
  after(() => h.tearDown());

  for (const kind of MESSAGE_KINDS) {
    describe(kind.name, () => {
      const msgIds = {};
      for (const [state, chatId] of Object.entries(chatIds)) {
        msgIds[state] = w.add(kind.name, kind.build(chatId), `msg-${state}`);
      }
      const orphan = w.add(kind.name, kind.build(goneChat), 'msg-orphan');
      const msg = (actor, id) => doc(h.db[actor], kind.name, id);
      const msgs = (actor) => collection(h.db[actor], kind.name);
      const ofChat = (actor, chatId) => query(msgs(actor), where('chat', '==', chatId));

      // --- get and list, per chat state and actor -----------------------------
      for (const [state, chatId] of Object.entries(chatIds)) {
        for (const [actor, label] of Object.entries(ACTORS)) {
          if (READERS[state][actor]) {
            test(`allow: ${label} gets a ${kind.name} doc of the owner's ${state} chat`,
              async () => { await expectFound(msg(actor, msgIds[state])); });
            test(`allow: ${label} lists ${kind.name} of the owner's ${state} chat filtered on chat`, async () => {
              const snap = await getDocs(ofChat(actor, chatId));
              assert.ok(snap.docs.some((d) => d.id === msgIds[state]));
              assert.ok(snap.docs.every((d) => d.data().chat === chatId));
            });
            test(`allow: ${label} listens to ${kind.name} of the owner's ${state} chat`, async () => {
              const snap = await firstSnapshot(ofChat(actor, chatId));
              assert.ok(snap.docs.some((d) => d.id === msgIds[state]));
            });
          } else {
            test(`deny: ${label} gets a ${kind.name} doc of the owner's ${state} chat`,
              () => assertFails(expectFound(msg(actor, msgIds[state]))));
            test(`deny: ${label} lists ${kind.name} of the owner's ${state} chat filtered on chat`,
              () => assertFails(getDocs(ofChat(actor, chatId))));
            test(`deny: ${label} listens to ${kind.name} of the owner's ${state} chat`,
              () => assertFails(firstSnapshot(ofChat(actor, chatId))));
          }
        }
      }
      for (const [actor, label] of Object.entries(ACTORS)) {
        test(`allow: ${label} gets a missing ${kind.name} doc and sees not-found`,
          () => expectMissing(msg(actor, 'no-such-message')));
        if (actor === 'admin') {
          test(`allow: admin lists all ${kind.name} without a filter`, async () => {
            const snap = await getDocs(msgs('admin'));
            const ids = snap.docs.map((d) => d.id);
            assert.ok([msgIds.unpublished, msgIds.published, orphan].every((id) => ids.includes(id)));
          });
          test(`allow: admin gets a ${kind.name} doc whose chat is gone`, async () => { await expectFound(msg('admin', orphan)); });
        } else {
          test(`deny: ${label} lists ${kind.name} without a filter`, () => assertFails(getDocs(msgs(actor))));
          test(`deny: ${label} gets a ${kind.name} doc whose chat is gone`,
            () => assertFails(expectFound(msg(actor, orphan))));
        }
      }
      // --- queries that name more than one chat, or every chat ----------------
      const both = [chatIds.published, chatIds.unpublished];
      test(`deny: signed-out visitor lists ${kind.name} filtered on chat in [published, unpublished]`,
        () => assertFails(getDocs(query(msgs('signedOut'), where('chat', 'in', both)))));
      test(`deny: other user lists ${kind.name} filtered on chat in [published, unpublished]`,
        () => assertFails(getDocs(query(msgs('other'), where('chat', 'in', both)))));
      test(`deny: owner lists ${kind.name} filtered on chat in [own chat, another user's unpublished chat]`,
        () => assertFails(getDocs(query(msgs('owner'), where('chat', 'in', [chatIds.unpublished, 'chat-of-bob'])))));
      test(`deny: signed-out visitor lists ${kind.name} of the published chat or the unpublished one`,
        () => assertFails(getDocs(query(msgs('signedOut'),
          or(where('chat', '==', chatIds.published), where('chat', '==', chatIds.unpublished))))));
      test(`deny: other user lists ${kind.name} of the published chat or with a message_index`,
        () => assertFails(getDocs(query(msgs('other'),
          or(where('chat', '==', chatIds.published), where('message_index', '>=', 0))))));
      for (const actor of ['owner', 'signedOut']) {
        test(`deny: ${ACTORS[actor]} lists ${kind.name} filtered on chat array-contains-any`,
          () => assertFails(getDocs(query(msgs(actor), where('chat', 'array-contains-any', both)))));
      }
      for (const [actor, label] of Object.entries(ACTORS)) {
        test(`deny: ${label} queries ${kind.name} through a collection group filtered on chat`,
          () => assertFails(getDocs(query(collectionGroup(h.db[actor], kind.name),
            where('chat', '==', chatIds.published)))));
      }

      // --- a message whose `chat` is not a chat id ------------------------------
      for (const [what, value] of Object.entries(BAD_CHAT)) {
        const data = kind.build(chatIds.published, { chat: value });
        if (value === undefined) delete data.chat;
        const id = w.add(kind.name, data, 'msg-bad-chat');
        for (const [actor, label] of Object.entries(ACTORS)) {
          if (actor === 'admin') {
            test(`allow: admin gets a ${kind.name} doc whose chat is ${what}`, async () => { await expectFound(msg(actor, id)); });
          } else {
            test(`deny: ${label} gets a ${kind.name} doc whose chat is ${what}`,
              () => assertFails(expectFound(msg(actor, id))));
          }
        }
      }

      // --- unpublishing revokes a listening reader ------------------------------
      for (const actor of ['other', 'signedOut']) {
        const chatId = w.newId('chat-revoked');
        w.docs[`${C.chats}/${chatId}`] = chatDoc({ published: true });
        w.add(kind.name, kind.build(chatId), 'msg-revoked');
        test(`deny: ${ACTORS[actor]} keeps listening to ${kind.name} of a chat its owner unpublishes`,
          { timeout: 15_000 }, () => assertFails(snapshotAfter(ofChat(actor, chatId), async () => {
            await updateDoc(doc(h.db.owner, C.chats, chatId), { published: false });
            await h.seed({ [`${kind.name}/${w.newId('msg-after')}`]: kind.build(chatId, { message_index: 2 }) });
          })));
      }

      test(`deny: owner lists ${kind.name} filtered on another field than chat`,
        () => assertFails(getDocs(query(msgs('owner'), where('message_index', '>=', 0)))));
      if (kind.name === C.chat_messages_streaming) {
        // The SPA follows one message's chunks: chat AND message, never message alone.
        const mid = kind.build(chatIds.published).message;
        test(`allow: signed-out visitor lists ${kind.name} of a published chat filtered on chat and message`,
          async () => {
            const snap = await getDocs(query(msgs('signedOut'), where('chat', '==', chatIds.published),
              where('message', '==', mid)));
            assert.ok(snap.docs.some((d) => d.id === msgIds.published));
          });
        test(`deny: signed-out visitor lists ${kind.name} filtered on message alone`,
          () => assertFails(getDocs(query(msgs('signedOut'), where('message', '==', mid)))));
        test(`deny: owner lists ${kind.name} of own chat filtered on message alone`,
          () => assertFails(getDocs(query(msgs('owner'), where('message', '==', mid)))));
      }

      // --- writes: postMessage, retryMessage and the engine only -------------
      for (const [actor, label] of Object.entries(ACTORS)) {
        for (const [state, chatId] of Object.entries(chatIds)) {
          test(`deny: ${label} creates a ${kind.name} doc in the owner's ${state} chat`,
            () => assertFails(setDoc(msg(actor, w.newId('new')), kind.build(chatId))));
          for (const [field, value] of Object.entries(kind.changes)) {
            const id = w.add(kind.name, kind.build(chatId));
            test(`deny: ${label} updates ${field} of a ${kind.name} doc in the owner's ${state} chat`,
              () => assertFails(updateDoc(msg(actor, id), { [field]: value })));
          }
          const id = w.add(kind.name, kind.build(chatId));
          test(`deny: ${label} deletes a ${kind.name} doc in the owner's ${state} chat`,
            () => assertFails(deleteDoc(msg(actor, id))));
        }
      }
      test(`deny: other user creates a ${kind.name} doc in their own chat`,
        () => assertFails(setDoc(msg('other', w.newId('new')), kind.build('chat-of-bob'))));
    });
  }
});
