// card_embeddings: the owner of cards may count (list, filtered on their own
// uid) the embeddings of their cards, which is how the import page shows
// "embedded n / N". Everything else about card_embeddings is denied in
// server-only.test.mjs.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFails } from '@firebase/rules-unit-testing';
import { getCountFromServer, getDocs, query, where } from 'firebase/firestore';
import { C, UID, collection, embeddingDoc, setUp } from './helpers.mjs';

describe('card_embeddings: the owner counts theirs', () => {
  let h;
  before(async () => {
    h = await setUp('demo-rules-card-embeddings', {
      [`${C.card_embeddings}/alice-1`]: embeddingDoc(),
      [`${C.card_embeddings}/alice-2`]: embeddingDoc(),
      [`${C.card_embeddings}/bob-1`]: embeddingDoc({ owner: UID.other }),
    });
  });
  after(() => h.tearDown());
  const embeddings = (actor) => collection(h.db[actor], C.card_embeddings);
  const ofOwner = (actor, owner = UID.owner) => query(embeddings(actor), where('owner', '==', owner));

  test('allow: owner counts their embeddings', async () => {
    assert.equal((await getCountFromServer(ofOwner('owner'))).data().count, 2);
  });
  test('allow: owner lists their embeddings filtered on owner', async () => {
    assert.deepEqual((await getDocs(ofOwner('owner'))).docs.map((d) => d.id).sort(), ['alice-1', 'alice-2']);
  });
  test('deny: owner counts another owner\'s embeddings', () => assertFails(getCountFromServer(ofOwner('owner', UID.other))));
  test('deny: owner counts all embeddings', () => assertFails(getCountFromServer(embeddings('owner'))));
  for (const actor of ['other', 'signedOut', 'admin', 'viewer']) {
    test(`deny: ${actor} counts the owner's embeddings`, () => assertFails(getCountFromServer(ofOwner(actor))));
  }
});
