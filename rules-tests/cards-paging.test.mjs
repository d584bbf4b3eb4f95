// The cards view's query shapes (web/src/data/cardqueries.ts). Pages in
// title order with a cursor, the tag as a query (tags array-contains), the
// aggregation counts per scope and the live feed of cards written since the
// page loaded are allowed exactly where the plain list filters are; the same
// shapes over cards the reader may not see are denied.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFails } from '@firebase/rules-unit-testing';
import {
  Timestamp, documentId, getCountFromServer, getDocs, limit, orderBy, query, startAfter, where,
} from 'firebase/firestore';
import { C, UID, cardDoc, collection, setUp } from './helpers.mjs';

const T1 = Timestamp.fromDate(new Date('2026-02-01T00:00:00Z'));
const SINCE = Timestamp.fromDate(new Date('2026-01-15T00:00:00Z'));

describe('cards: pages, tags, counts and the live feed', () => {
  let h;
  before(async () => {
    h = await setUp('demo-rules-cards-paging', {
      [`${C.cards}/a-own-1`]: cardDoc({ title: 'Alpha', tags: ['sea'] }),
      [`${C.cards}/a-own-2`]: cardDoc({ title: 'Beta', tags: ['sea', 'moon'], updated: T1 }),
      [`${C.cards}/a-own-3`]: cardDoc({ title: 'Gamma', tags: ['moon'] }),
      [`${C.cards}/a-shared`]: cardDoc({ title: 'Delta', viewers: [UID.viewer], tags: ['sea'], updated: T1 }),
      [`${C.cards}/b-public`]: cardDoc({ title: 'Epsilon', owner: UID.other, visibility: 'public', tags: ['sea'], updated: T1 }),
      [`${C.cards}/b-private`]: cardDoc({ title: 'Zeta', owner: UID.other, tags: ['sea'] }),
    });
  });
  after(() => h.tearDown());

  const cards = (actor) => collection(h.db[actor], C.cards);
  const page = (q, ...more) => query(q, orderBy('title'), orderBy(documentId()), ...more);
  const ids = async (q) => (await getDocs(q)).docs.map((d) => d.id);
  const count = async (q) => (await getCountFromServer(q)).data().count;
  const own = (actor) => query(cards(actor), where('owner', '==', UID.owner));

  // --- pages with cursors ------------------------------------------------------
  test('allow: owner pages own cards in title order with a cursor', async () => {
    assert.deepEqual(await ids(page(own('owner'), limit(2))), ['a-own-1', 'a-own-2']);
    assert.deepEqual(await ids(page(own('owner'), startAfter('Beta', 'a-own-2'), limit(2))), ['a-shared', 'a-own-3']);
  });
  test('allow: owner pages own cards with a tag', async () => {
    const q = query(own('owner'), where('tags', 'array-contains', 'moon'));
    assert.deepEqual(await ids(page(q, limit(10))), ['a-own-2', 'a-own-3']);
  });
  test('allow: listed viewer pages the cards shared with them', async () => {
    const q = query(cards('viewer'), where('viewers', 'array-contains', UID.viewer));
    assert.deepEqual(await ids(page(q, startAfter('Alpha', 'a-own-1'), limit(10))), ['a-shared']);
  });
  // "Shared with me": the accepted sharers' cards (owner in), and who shares, one card per person (by owner).
  const fromAccepted = (actor, owners) => query(cards(actor), where('viewers', 'array-contains', UID.viewer), where('owner', 'in', owners));
  test('allow: listed viewer pages, counts and follows the cards of the sharers they accepted', async () => {
    assert.deepEqual(await ids(page(fromAccepted('viewer', [UID.owner, UID.other]), limit(10))), ['a-shared']);
    assert.equal(await count(fromAccepted('viewer', [UID.owner])), 1);
    assert.deepEqual(await ids(query(fromAccepted('viewer', [UID.owner]), where('updated', '>', SINCE))), ['a-shared']);
  });
  test('allow: listed viewer finds who shares cards with them, one card per person', async () => {
    const q = query(cards('viewer'), where('viewers', 'array-contains', UID.viewer), orderBy('owner'), limit(1));
    assert.deepEqual(await ids(q), ['a-shared']);
    assert.deepEqual(await ids(query(q, startAfter(UID.owner))), []);
  });
  test('deny: other user pages the cards an accepted sharer shares with someone else',
    () => assertFails(getDocs(page(fromAccepted('other', [UID.owner]), limit(10)))));
  test('deny: other user finds who shares cards with someone else', () => assertFails(getDocs(
    query(cards('other'), where('viewers', 'array-contains', UID.viewer), orderBy('owner'), limit(1)))));
  test('allow: signed-out visitor pages public cards with a tag', async () => {
    const q = query(cards('signedOut'), where('visibility', '==', 'public'), where('tags', 'array-contains', 'sea'));
    assert.deepEqual(await ids(page(q, limit(10))), ['b-public']);
  });
  // One followed owner's public cards: owner == X and visibility == public.
  const deck = (actor) => query(cards(actor), where('owner', '==', UID.other), where('visibility', '==', 'public'));
  test('allow: owner pages another owner\'s public cards, with and without a tag', async () => {
    assert.deepEqual(await ids(page(deck('owner'), limit(10))), ['b-public']);
    assert.deepEqual(await ids(page(query(deck('owner'), where('tags', 'array-contains', 'sea')), limit(10))), ['b-public']);
  });
  test('allow: owner counts and follows live another owner\'s public cards', async () => {
    assert.equal(await count(deck('owner')), 1);
    assert.equal(await count(query(deck('owner'), where('tags', 'array-contains', 'moon'))), 0);
    assert.deepEqual(await ids(query(deck('owner'), where('updated', '>', SINCE))), ['b-public']);
  });
  test('deny: owner pages another owner\'s cards without the public filter',
    () => assertFails(getDocs(page(query(cards('owner'), where('owner', '==', UID.other)), limit(10)))));
  test('deny: other user pages the owner\'s cards', () => assertFails(getDocs(page(own('other'), limit(10)))));
  test('deny: signed-in user pages cards by tag alone',
    () => assertFails(getDocs(page(query(cards('other'), where('tags', 'array-contains', 'sea')), limit(10)))));

  // --- counts (aggregation queries) ---------------------------------------------
  test('allow: owner counts own cards, with and without a tag', async () => {
    assert.equal(await count(own('owner')), 4);
    assert.equal(await count(query(own('owner'), where('tags', 'array-contains', 'sea'))), 3);
  });
  test('allow: listed viewer counts the cards shared with them', async () => {
    assert.equal(await count(query(cards('viewer'), where('viewers', 'array-contains', UID.viewer))), 1);
  });
  test('allow: owner counts others\' public cards, with a tag', async () => {
    const q = query(cards('owner'), where('visibility', '==', 'public'), where('owner', '!=', UID.owner));
    assert.equal(await count(q), 1);
    assert.equal(await count(query(q, where('tags', 'array-contains', 'moon'))), 0);
  });
  test('deny: other user counts the owner\'s cards', () => assertFails(count(own('other'))));
  test('deny: signed-out visitor counts the owner\'s cards', () => assertFails(count(own('signedOut'))));
  test('deny: signed-in user counts all cards', () => assertFails(count(cards('other'))));
  test('deny: other user counts cards shared with someone else',
    () => assertFails(count(query(cards('other'), where('viewers', 'array-contains', UID.viewer)))));
  test('deny: signed-in user counts cards by tag alone',
    () => assertFails(count(query(cards('other'), where('tags', 'array-contains', 'sea')))));

  // --- the live feed: cards written since the page loaded -------------------------
  test('allow: owner, viewer and visitor read the feed of their three queries', async () => {
    const since = where('updated', '>', SINCE);
    assert.deepEqual(await ids(query(own('owner'), since)), ['a-own-2', 'a-shared']);
    assert.deepEqual(await ids(query(cards('viewer'), where('viewers', 'array-contains', UID.viewer), since)), ['a-shared']);
    assert.deepEqual(await ids(query(cards('signedOut'), where('visibility', '==', 'public'), since)), ['b-public']);
  });
  test('deny: signed-in user reads the feed of all cards',
    () => assertFails(getDocs(query(cards('other'), where('updated', '>', SINCE)))));
});
