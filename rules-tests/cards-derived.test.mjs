// cards, derived_from: a card the owner saves from an answer ("Save as
// card") records which chat and message it came from, as two ids. The owner
// writes it with the card; the rules check its shape and keep it as written
// on every edit.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFails, assertSucceeds } from '@firebase/rules-unit-testing';
import { deleteField, serverTimestamp, setDoc, updateDoc } from 'firebase/firestore';
import { C, UID, cardDoc, doc, fixtures, setUp } from './helpers.mjs';

const FROM = { chat_id: 'chat-1', message_id: 'msg-2' };
const fresh = (derivedFrom) => ({ ...cardDoc({ created: serverTimestamp(), updated: serverTimestamp() }), derived_from: derivedFrom });

// derived_from values the owner may not write, each named by what is wrong with it.
const MALFORMED = {
  'a string': 'chat-1/msg-2',
  'null': null,
  'a list': ['chat-1', 'msg-2'],
  'no message_id': { chat_id: 'chat-1' },
  'no chat_id': { message_id: 'msg-2' },
  'an extra key': { ...FROM, card_ids: ['card-a'] },
  'a number as chat_id': { chat_id: 7, message_id: 'msg-2' },
  'a map as message_id': { chat_id: 'chat-1', message_id: { id: 'msg-2' } },
  'an empty chat_id': { chat_id: '', message_id: 'msg-2' },
  'a message_id over 128 characters': { chat_id: 'chat-1', message_id: 'm'.repeat(129) },
};

describe('cards: derived_from', () => {
  let h;
  const w = fixtures();
  const stored = () => w.add(C.cards, { ...cardDoc(), derived_from: FROM }, 'card');
  before(async () => { h = await setUp('demo-rules-cards-derived', w.docs); });
  after(() => h.tearDown());
  const card = (id) => doc(h.db.owner, C.cards, id);
  const own = () => `${UID.owner}_${w.newId('new')}`;

  test('allow: owner creates a card saved from an answer', async () => {
    const id = own();
    await assertSucceeds(setDoc(card(id), fresh({ chat_id: 'c'.repeat(128), message_id: 'msg-2' })));
    assert.deepEqual((await h.peek(`${C.cards}/${id}`)).derived_from, { chat_id: 'c'.repeat(128), message_id: 'msg-2' });
  });
  for (const [what, value] of Object.entries(MALFORMED)) {
    test(`deny: owner creates a card whose derived_from is ${what}`, () => assertFails(setDoc(card(own()), fresh(value))));
  }
  {
    const id = stored();
    test('allow: owner edits a card saved from an answer, derived_from kept', () => assertSucceeds(updateDoc(card(id), {
      body: 'Edited.', updated: serverTimestamp(),
    })));
  }
  {
    const id = stored();
    test('deny: owner points derived_from at another answer', () => assertFails(updateDoc(card(id), {
      derived_from: { chat_id: 'chat-1', message_id: 'msg-9' }, updated: serverTimestamp(),
    })));
  }
  {
    const id = stored();
    test('deny: owner removes derived_from', () => assertFails(updateDoc(card(id), {
      derived_from: deleteField(), updated: serverTimestamp(),
    })));
  }
  {
    const id = w.add(C.cards, cardDoc(), 'card');
    test('deny: owner adds derived_from to a card not saved from an answer', () => assertFails(updateDoc(card(id), {
      derived_from: FROM, updated: serverTimestamp(),
    })));
  }
});
