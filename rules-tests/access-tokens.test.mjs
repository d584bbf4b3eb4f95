// access_tokens/{tokenId}: a user's personal access tokens as listed in
// Settings (label, created, last_used, scope; never the token or its hash). The
// owner gets and lists their own; nobody else, admins included, reads one;
// no client writes one (the server creates, stamps and revokes).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFails } from '@firebase/rules-unit-testing';
import { Timestamp, deleteDoc, getDoc, getDocs, query, setDoc, updateDoc, where } from 'firebase/firestore';
import { ACTORS, C, UID, collection, doc, expectFound, fixtures, listIds, schemaFields, setUp } from './helpers.mjs';

const T0 = Timestamp.fromDate(new Date('2026-01-01T00:00:00Z'));
const TOKEN = 'token-alice';

function tokenDoc(over = {}) {
  const data = { owner: UID.owner, label: 'Claude Desktop', created: T0, last_used: null, scope: 'read', ...over };
  assert.deepEqual(Object.keys(data).sort(), schemaFields('AccessToken').sort());
  return data;
}

describe('access_tokens', () => {
  let h;
  const w = fixtures();
  const seeds = {
    [`${C.access_tokens}/${TOKEN}`]: tokenDoc(),
    [`${C.access_tokens}/token-bob`]: tokenDoc({ owner: UID.other, label: "Bob's" }),
  };

  before(async () => { h = await setUp('demo-rules-access-tokens', { ...seeds, ...w.docs }); });
  after(() => h.tearDown());

  const tokens = (actor) => collection(h.db[actor], C.access_tokens);
  const token = (actor, id = TOKEN) => doc(tokens(actor), id);
  const mine = (actor, uid = UID.owner) => query(tokens(actor), where('owner', '==', uid));

  test('allow: owner gets own token listing', async () => {
    const snap = await expectFound(token('owner'));
    assert.equal(snap.data().label, 'Claude Desktop');
  });
  test('allow: owner lists own tokens filtered on owner', async () => {
    const ids = await listIds(mine('owner'));
    assert.ok(ids.includes(TOKEN) && !ids.includes('token-bob'), String(ids));
  });
  test('deny: owner lists tokens without a filter', () => assertFails(getDocs(tokens('owner'))));
  test('deny: owner lists another user\'s tokens', () => assertFails(getDocs(mine('owner', UID.other))));
  test('deny: owner gets a missing token listing', () => assertFails(getDoc(token('owner', 'missing'))));

  for (const [actor, label] of Object.entries(ACTORS)) {
    if (actor !== 'owner') {
      test(`deny: ${label} gets the owner's token listing`, () => assertFails(expectFound(token(actor))));
      test(`deny: ${label} lists the owner's tokens`, () => assertFails(getDocs(mine(actor))));
    }
    const writes = {
      'creates a token listing': () => setDoc(token(actor, w.newId('new')), tokenDoc()),
      'changes a token\'s label': (id) => updateDoc(token(actor, id), { label: 'renamed' }),
      'stamps a token\'s last_used': (id) => updateDoc(token(actor, id), { last_used: T0 }),
      'deletes a token listing': (id) => deleteDoc(token(actor, id)),
    };
    for (const [what, write] of Object.entries(writes)) {
      const id = w.add(C.access_tokens, tokenDoc(), 'token');
      test(`deny: ${label} ${what}`, () => assertFails(write(id)));
    }
  }
});
