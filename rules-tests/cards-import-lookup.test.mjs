// The browser import's look-up (web/src/data/cardwrites.ts ownCardsAmong):
// of the ids an import would write, which are already the importer's cards.
// It reads (a first import only counts) a range of the owner's card ids (owner == own uid,
// documentId() between two ids): allowed, since the owner filter proves every
// result is the caller's; the ids that are missing or another owner's simply
// do not come back. The same range without the owner filter, or filtered on
// someone else, is denied. A `documentId() in` list is evaluated per id by
// the rules, and a missing card is denied, so it cannot serve an import.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFails } from '@firebase/rules-unit-testing';
import { documentId, getCountFromServer, getDocs, limit, orderBy, query, where } from 'firebase/firestore';
import { C, UID, cardDoc, collection, setUp } from './helpers.mjs';

describe('cards: an import looks up its ids', () => {
  let h;
  before(async () => {
    h = await setUp('demo-rules-cards-import-lookup', {
      [`${C.cards}/n-a-note`]: cardDoc({ title: 'A note' }),
      [`${C.cards}/n-a-public`]: cardDoc({ title: 'A public note', visibility: 'public' }),
      [`${C.cards}/n-b-note`]: cardDoc({ title: 'B note', owner: UID.other }),
      [`${C.cards}/n-b-public`]: cardDoc({ title: 'B public', owner: UID.other, visibility: 'public' }),
      [`${C.cards}/z-a-later`]: cardDoc({ title: 'Outside the range' }),
    });
  });
  after(() => h.tearDown());

  const cards = (actor) => collection(h.db[actor], C.cards);
  const range = (q) => query(q, where(documentId(), '>=', 'n-'), where(documentId(), '<=', 'n-z'));
  const lookup = (actor, owner) => range(query(cards(actor), where('owner', '==', owner)));
  const ids = async (q) => (await getDocs(q)).docs.map((d) => d.id).sort();
  const count = async (q) => (await getCountFromServer(q)).data().count;

  test('allow: owner reads a range of ids with the owner filter, in id order, limited: only their own cards', async () => {
    assert.deepEqual(await ids(query(lookup('owner', UID.owner), orderBy(documentId()), limit(5))), ['n-a-note', 'n-a-public']);
    assert.equal(await count(lookup('owner', UID.owner)), 2);
  });
  test('allow: another user\'s look-up of the same range finds only their own cards', async () => {
    assert.equal(await count(lookup('other', UID.other)), 2);
    assert.deepEqual(await ids(lookup('other', UID.other)), ['n-b-note', 'n-b-public']);
  });
  test('allow: signed-out visitor counts a range of public cards', async () => {
    assert.equal(await count(range(query(cards('signedOut'), where('visibility', '==', 'public')))), 2);
  });
  test('deny: owner counts the range without the owner filter', () => assertFails(count(range(cards('owner')))));
  test('deny: owner reads the range without the owner filter', () => assertFails(getDocs(range(cards('owner')))));
  test('deny: owner reads the range filtered on another owner',
    () => assertFails(getDocs(query(lookup('owner', UID.other), orderBy(documentId()), limit(5)))));
  test('deny: owner counts the range filtered on another owner', () => assertFails(count(lookup('owner', UID.other))));
  test('deny: signed-out visitor reads the owner\'s range', () => assertFails(getDocs(lookup('signedOut', UID.owner))));
  test('deny: owner asks for ids with documentId() in, one of them missing',
    () => assertFails(getDocs(query(cards('owner'), where('owner', '==', UID.owner), where(documentId(), 'in', ['n-a-note', 'n-missing'])))));
});
