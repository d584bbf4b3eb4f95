// chat_private: what only a chat's owner may know about it (card ids,
// collection description and configuration, the query it was made from, counts, how many
// of the cards are other people's, the chat it was branched from). The owner and admins get it; a visitor or another user never does,
// published chat or not; only the owner lists it (filtered on their uid), and admins; no client writes it.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertFails, assertSucceeds } from '@firebase/rules-unit-testing';
import { collectionGroup, deleteDoc, getDocs, query, setDoc, updateDoc, where } from 'firebase/firestore';
import {
  ACTORS, C, UID, chatDoc, chatPrivateDoc, collection, doc, expectFound, expectMissing, fixtures, setUp, viewerDoc,
  viewerId,
} from './helpers.mjs';

const READERS = { owner: true, other: false, signedOut: false, admin: true };
const chats = { unpublished: 'chat-unpublished', published: 'chat-published' };

describe('chat_private', () => {
  let h;
  const w = fixtures();
  const fresh = (published) => {
    const id = w.add(C.chat_private, chatPrivateDoc(), 'chat');
    w.docs[`${C.chats}/${id}`] = chatDoc({ published });
    return id;
  };

  before(async () => {
    h = await setUp('demo-rules-chat-private', {
      [`${C.chats}/${chats.unpublished}`]: chatDoc(),
      [`${C.chat_private}/${chats.unpublished}`]: chatPrivateDoc(),
      [`${C.chats}/${chats.published}`]: chatDoc({ published: true }),
      [`${C.chat_private}/${chats.published}`]: chatPrivateDoc(),
      [`${C.chat_viewers}/${viewerId(chats.unpublished, UID.chatViewer)}`]: viewerDoc(chats.unpublished, UID.chatViewer),
      ...w.docs,
    });
  });
  after(() => h.tearDown());

  const priv = (actor, id) => doc(h.db[actor], C.chat_private, id);
  const all = (actor) => collection(h.db[actor], C.chat_private);

  // --- get -------------------------------------------------------------------
  for (const [state, id] of Object.entries(chats)) {
    for (const [actor, label] of Object.entries(ACTORS)) {
      if (READERS[actor]) {
        test(`allow: ${label} gets the private data of the owner's ${state} chat`, async () => { await expectFound(priv(actor, id)); });
      } else {
        test(`deny: ${label} gets the private data of the owner's ${state} chat`,
          () => assertFails(expectFound(priv(actor, id))));
      }
    }
    test(`deny: non-admin with an admin token claim gets the private data of a ${state} chat`,
      () => assertFails(expectFound(priv('notAdmin', id))));
  }
  // How many cards changed since the chat started: the owner's header, derived from the hidden background.
  test('allow: owner reads how many of the chat\'s cards changed since it started', async () => {
    assert.equal((await expectFound(priv('owner', chats.published))).data().cards_changed, 3);
  });
  test('allow: a viewer the chat is shared with gets the chat itself (the transcript\'s head)',
    async () => { await expectFound(doc(h.db.chatViewer, C.chats, chats.unpublished)); });
  test('deny: a viewer the chat is shared with reads how many of its cards changed',
    () => assertFails(expectFound(priv('chatViewer', chats.unpublished))));
  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`allow: ${label} gets the private data of a missing chat and sees not-found`,
      () => expectMissing(priv(actor, 'no-such-chat')));
  }

  // --- list: the owner, filtered on their uid (a saved collection's chats: filtered on collection_id too); admins
  test('allow: owner lists own chats\' private data filtered on owner',
    async () => { await assertSucceeds(getDocs(query(all('owner'), where('owner', '==', UID.owner)))); });
  test('allow: owner lists the private data of own chats made from one collection',
    async () => { await assertSucceeds(getDocs(query(all('owner'), where('owner', '==', UID.owner), where('collection_id', '==', 'col-1')))); });
  test('allow: admin lists chat_private', async () => { await assertSucceeds(getDocs(all('admin'))); });
  test('deny: owner lists chat_private without a filter', () => assertFails(getDocs(all('owner'))));
  for (const actor of ['other', 'signedOut']) {
    const label = ACTORS[actor];
    test(`deny: ${label} lists chat_private without a filter`, () => assertFails(getDocs(all(actor))));
    test(`deny: ${label} lists chat_private filtered on owner`,
      () => assertFails(getDocs(query(all(actor), where('owner', '==', UID.owner)))));
  }
  for (const [actor, label] of Object.entries(ACTORS)) {
    test(`deny: ${label} queries chat_private through a collection group`,
      () => assertFails(getDocs(query(collectionGroup(h.db[actor], C.chat_private), where('owner', '==', UID.owner)))));
  }

  // --- writes: the server's alone, the owner's included ------------------------
  for (const [actor, label] of Object.entries(ACTORS)) {
    const owner = actor === 'signedOut' ? UID.owner : UID[actor];
    test(`deny: ${label} creates private data for a chat`,
      () => assertFails(setDoc(priv(actor, w.newId('new')), chatPrivateDoc({ owner }))));
    const edits = {
      card_ids: ['card-z'], collection: { description: 'edited' }, collection_query: { scope: 'visible' }, cards_by_others: 0,
    };
    for (const [field, value] of Object.entries(edits)) {
      const id = fresh(false);
      test(`deny: ${label} updates ${field} of the owner's chat's private data`,
        () => assertFails(updateDoc(priv(actor, id), { [field]: value })));
    }
    const del = fresh(true);
    test(`deny: ${label} deletes the owner's chat's private data`, () => assertFails(deleteDoc(priv(actor, del))));
  }
});
