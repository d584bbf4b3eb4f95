// answer_feedback, answer_usage and usage_daily: the owner's ratings, what
// each answer's prompt counted (the background's size) and daily usage. The
// owner (lists filtered on their uid) and admins read them;
// another user, a viewer and a visitor of a published chat never do, nor
// learn whether one exists; no client writes them.

import { after, before, describe, test } from 'node:test';
import { assertFails } from '@firebase/rules-unit-testing';
import { deleteDoc, getDoc, getDocs, query, setDoc, updateDoc, where } from 'firebase/firestore';
import {
  ACTORS, C, UID, answerUsageDoc, collection, doc, expectFound, feedbackDoc, fixtures, listIds, setUp, usageDayDoc,
} from './helpers.mjs';

const READERS = { owner: true, other: false, signedOut: false, admin: true };
const KINDS = [
  { name: C.answer_feedback, build: feedbackDoc, id: 'msg-1', bobs: 'msg-bob', change: { rating: 'up' } },
  { name: C.answer_usage, build: answerUsageDoc, id: 'msg-1', bobs: 'msg-bob', change: { cost_usd: 0 } },
  {
    name: C.usage_daily, build: usageDayDoc, id: `${UID.owner}_2026-01-01_claude-test`,
    bobs: `${UID.other}_2026-01-01_claude-test`, change: { cost_usd: 0 },
  },
];

for (const kind of KINDS) {
  describe(kind.name, () => {
    let h;
    const w = fixtures();
    const bobs = kind.bobs;

    before(async () => {
      h = await setUp(`demo-rules-${kind.name.replace(/_/g, '-')}`, {
        [`${kind.name}/${kind.id}`]: kind.build(),
        [`${kind.name}/${bobs}`]: kind.build({ owner: UID.other }),
        ...w.docs,
      });
    });
    after(() => h.tearDown());

    const ref = (actor, id) => doc(h.db[actor], kind.name, id);
    const all = (actor) => collection(h.db[actor], kind.name);

    // --- get -------------------------------------------------------------------
    for (const [actor, label] of Object.entries(ACTORS)) {
      if (READERS[actor]) {
        test(`allow: ${label} gets the owner's ${kind.name}`, async () => { await expectFound(ref(actor, kind.id)); });
      } else {
        test(`deny: ${label} gets the owner's ${kind.name}`, () => assertFails(expectFound(ref(actor, kind.id))));
      }
      test(`deny: ${label} gets a missing ${kind.name} (no not-found to learn from)`,
        () => assertFails(getDoc(ref(actor, 'no-such'))));
    }
    test(`deny: the owner gets another user's ${kind.name}`, () => assertFails(expectFound(ref('owner', bobs))));
    test(`deny: a viewer of the owner's cards gets the owner's ${kind.name}`,
      () => assertFails(expectFound(ref('viewer', kind.id))));
    test(`deny: non-admin with an admin token claim gets the owner's ${kind.name}`,
      () => assertFails(expectFound(ref('notAdmin', kind.id))));

    // --- list --------------------------------------------------------------------
    test(`allow: owner lists ${kind.name} filtered on their own uid`, async () => {
      const ids = await listIds(query(all('owner'), where('owner', '==', UID.owner)));
      if (!ids.includes(kind.id) || ids.includes(bobs)) throw new Error(`listed ${ids}`);
    });
    test(`allow: admin lists every ${kind.name}`, async () => {
      const ids = await listIds(all('admin'));
      if (!ids.includes(kind.id) || !ids.includes(bobs)) throw new Error(`listed ${ids}`);
    });
    test(`deny: owner lists ${kind.name} without a filter`, () => assertFails(getDocs(all('owner'))));
    for (const actor of ['other', 'signedOut', 'viewer', 'notAdmin']) {
      test(`deny: ${ACTORS[actor] ?? actor} lists ${kind.name} filtered on the owner's uid`,
        () => assertFails(getDocs(query(all(actor), where('owner', '==', UID.owner)))));
    }

    // --- writes: nobody, the owner and admins included -----------------------------
    for (const [actor, label] of Object.entries(ACTORS)) {
      const owner = actor === 'signedOut' ? UID.owner : UID[actor];
      test(`deny: ${label} creates a ${kind.name}`, () => assertFails(setDoc(ref(actor, w.newId('new')), kind.build({ owner }))));
      const upd = w.add(kind.name, kind.build());
      test(`deny: ${label} updates the owner's ${kind.name}`, () => assertFails(updateDoc(ref(actor, upd), kind.change)));
      const del = w.add(kind.name, kind.build());
      test(`deny: ${label} deletes the owner's ${kind.name}`, () => assertFails(deleteDoc(ref(actor, del))));
    }
  });
}
