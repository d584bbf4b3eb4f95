// A card kept but not embedded, over its owner's card quota: its page tells
// the owner "over your card limit" and why, from the owner-readable record
// the embedding worker writes (embedding_skips). Seeded with the triggers
// paused, so no worker rewrites the record meanwhile.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminDelete, adminSet, APP_URL, COLLECTIONS, ensureUser, launch, newContext, pageErrors, signIn, withTriggersPaused,
} from './support.mjs';

const OWNER = { email: 'quota-owner@cardchat.test', password: 'quota-owner-1' };
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** Two private cards of `uid`'s, the first one recorded as over the card limit. */
async function seed(uid, ids) {
  const at = new Date();
  await withTriggersPaused(async () => {
    for (const id of ids) {
      await adminSet(`${COLLECTIONS.cards}/${id}`, {
        title: `Quota card ${id}`, body: 'Kept, whether or not it is embedded.',
        owner: uid, visibility: 'private', viewers: [], tags: [], created: at, updated: at,
      });
    }
    await adminSet(`${COLLECTIONS.embedding_skips}/${uid}:${ids[0]}`, { owner: uid, card: ids[0], reason: 'card_limit', at });
  });
}

test('a card over its owner\'s card limit says so on its page; a card within it does not', async () => {
  const { uid } = await ensureUser(OWNER.email, OWNER.password);
  const ids = [`quota-over-${Date.now()}`, `quota-within-${Date.now()}`];
  const context = await newContext(browser);
  const page = await context.newPage();
  const errors = pageErrors(page);
  try {
    await seed(uid, ids);
    await signIn(page, OWNER.email, OWNER.password);
    await page.goto(`${APP_URL}/card/${ids[0]}`);
    const note = page.getByTestId('card-over-limit');
    await note.waitFor({ timeout: 30_000 });
    assert.match(await note.innerText(), /^over your card limit\b.*more cards than/s);
    // the other card's page asks the same question and gets no record: it says nothing
    await page.goto(`${APP_URL}/card/${ids[1]}`);
    await page.locator('[data-testid=card-quota][data-checked=true]').waitFor({ state: 'attached', timeout: 30_000 });
    assert.equal(await page.getByTestId('card-over-limit').count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    for (const id of ids) await adminDelete(`${COLLECTIONS.cards}/${id}`);
    await adminDelete(`${COLLECTIONS.embedding_skips}/${uid}:${ids[0]}`);
    await context.close();
  }
});
