// chat_backgrounds/{chat} and parts/{i}: the hidden background, the cards'
// text packed for the model. No client reads or writes it: not the chat's
// owner, not an admin, not once the chat is published.

import { after, before, describe, test } from 'node:test';
import { assertFails } from '@firebase/rules-unit-testing';
import {
  collectionGroup, deleteDoc, getDoc, getDocs, query, setDoc, updateDoc, where,
} from 'firebase/firestore';
import {
  ACTORS, C, UID, backgroundDoc, chatDoc, collection, doc, expectFound, fixtures, setUp,
} from './helpers.mjs';

const chatIds = { unpublished: 'chat-unpublished', published: 'chat-published' };
const PART = { text: 'Card 1: Tides. The moon pulls the sea.' };

describe('chat_backgrounds', () => {
  let h;
  const w = fixtures();
  const seeds = {};
  for (const [state, chatId] of Object.entries(chatIds)) {
    seeds[`${C.chats}/${chatId}`] = chatDoc({ published: state === 'published' });
    seeds[`${C.chat_backgrounds}/${chatId}`] = backgroundDoc(chatId);
    seeds[`${C.chat_backgrounds}/${chatId}/${C.chat_background_parts}/0`] = PART;
  }

  before(async () => { h = await setUp('demo-rules-backgrounds', { ...seeds, ...w.docs }); });
  after(() => h.tearDown());

  const bg = (actor, chatId) => doc(h.db[actor], C.chat_backgrounds, chatId);
  const parts = (actor, chatId) => collection(h.db[actor], C.chat_backgrounds, chatId, C.chat_background_parts);
  const part = (actor, chatId, i) => doc(parts(actor, chatId), i);

  /** A chat of its own with background and part 0, for one write test. */
  function freshBackground(state) {
    const chatId = w.newId(`chat-${state}`);
    w.docs[`${C.chats}/${chatId}`] = chatDoc({ published: state === 'published' });
    w.docs[`${C.chat_backgrounds}/${chatId}`] = backgroundDoc(chatId);
    w.docs[`${C.chat_backgrounds}/${chatId}/${C.chat_background_parts}/0`] = PART;
    return chatId;
  }

  for (const [actor, label] of Object.entries(ACTORS)) {
    for (const [state, chatId] of Object.entries(chatIds)) {
      const of = `of the owner's ${state} chat`;
      test(`deny: ${label} gets the background ${of}`, () => assertFails(expectFound(bg(actor, chatId))));
      test(`deny: ${label} gets a background part ${of}`,
        () => assertFails(expectFound(part(actor, chatId, '0'))));
      test(`deny: ${label} lists the background parts ${of}`, () => assertFails(getDocs(parts(actor, chatId))));
      const writes = {
        'updates the background': (id) => updateDoc(bg(actor, id), { tokens: 1 }),
        'deletes the background': (id) => deleteDoc(bg(actor, id)),
        'overwrites a background part': (id) => setDoc(part(actor, id, '0'), { text: 'replaced' }),
        'adds a background part': (id) => setDoc(part(actor, id, '1'), { text: 'injected' }),
        'deletes a background part': (id) => deleteDoc(part(actor, id, '0')),
      };
      for (const [what, write] of Object.entries(writes)) {
        const id = freshBackground(state);
        test(`deny: ${label} ${what} ${of}`, () => assertFails(write(id)));
      }
    }
    const all = () => collection(h.db[actor], C.chat_backgrounds);
    test(`deny: ${label} lists backgrounds without a filter`, () => assertFails(getDocs(all())));
    test(`deny: ${label} lists backgrounds filtered on chat`,
      () => assertFails(getDocs(query(all(), where('chat', '==', chatIds.published)))));
    test(`deny: ${label} lists backgrounds filtered on owner`,
      () => assertFails(getDocs(query(all(), where('owner', '==', UID.owner)))));
    test(`deny: ${label} queries every background part through a collection group`,
      () => assertFails(getDocs(collectionGroup(h.db[actor], C.chat_background_parts))));
    // A real denial, not a not-found: a missing background must not be probeable.
    test(`deny: ${label} gets a missing background`, () => assertFails(getDoc(bg(actor, 'no-such-chat'))));
    test(`deny: ${label} creates a background`, () => {
      const id = w.newId('new');
      return assertFails(setDoc(bg(actor, id), backgroundDoc(id)));
    });
  }
});
