// Related cards: a card's page lists the nearest cards its reader may read,
// from the reader's own cards (never another person's private card, nor a
// stranger's public one, however close), never the card itself; each opens
// its own page, which has related cards of its own.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminSet, APP_URL, callFunction, COLLECTIONS, DESKTOP, ensureUser, launch, newContext, pageErrors, signIn, until,
} from './support.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const PASSWORD = 'related-pass-1';

/** A reader with three cards on kites and one on tax; a stranger with a private and a public kite card. */
async function seed(stamp) {
  const reader = await ensureUser(`related-reader-${stamp}@cardchat.test`, PASSWORD);
  const stranger = await ensureUser(`related-stranger-${stamp}@cardchat.test`, PASSWORD);
  const now = new Date();
  const cards = {
    open: [reader.uid, 'Flying a stunt kite', 'A stunt kite has two lines; pull the left line to turn the kite left.', 'private'],
    near: [reader.uid, 'Stunt kite lines', 'Stunt kite lines are Dyneema; both lines must be the same length.', 'private'],
    far: [reader.uid, 'Quarterly tax', 'The quarterly tax payment is due at the end of the month after the quarter.', 'private'],
    hidden: [stranger.uid, 'Stunt kite secrets', 'My stunt kite lines are hidden in the shed.', 'private'],
    public: [stranger.uid, 'Stunt kite tricks', 'A public note on stunt kite tricks and their lines.', 'public'],
  };
  const ids = {};
  for (const [key, [owner, title, body, visibility]] of Object.entries(cards)) {
    ids[key] = `${owner}_e2e-related-${key}-${stamp}`;
    await adminSet(`${COLLECTIONS.cards}/${ids[key]}`, { title, body, owner, visibility, viewers: [], tags: [], created: now, updated: now });
  }
  // The reader's index takes the cards once they are embedded: wait for the server to rank them.
  await until('the near card among the related cards', async () => {
    const r = await callFunction('relatedCards', { card_id: ids.open }, reader.idToken);
    return r.cards.some((c) => c.id === ids.near);
  }, 180_000, 3000);
  return { reader, ids };
}

/** The card's page shows the near card first, and nothing of the stranger's, nor itself. */
async function showsRelated(page, ids) {
  await page.goto(`${APP_URL}/card/${encodeURIComponent(ids.open)}`);
  const panel = page.getByTestId('related-cards');
  await panel.locator('[data-testid=related-card]').first().waitFor({ timeout: 60_000 });
  const shown = await panel.locator('[data-testid=related-card]').evaluateAll((els) => els.map((e) => e.getAttribute('data-card-id')));
  assert.equal(shown[0], ids.near, `the nearest card leads: ${shown}`);
  for (const key of ['open', 'hidden', 'public']) assert.ok(!shown.includes(ids[key]), `no ${key} card among ${shown}`);
  assert.match(await panel.textContent() ?? '', /Stunt kite lines/);
  assert.doesNotMatch(await panel.textContent() ?? '', /shed|tricks/);
}

/** A related card opens its own page, whose panel lists the card we came from. */
async function opensOne(page, ids) {
  await page.getByTestId('related-cards').getByRole('link', { name: 'Stunt kite lines' }).click();
  await page.waitForURL((url) => url.pathname === `/card/${encodeURIComponent(ids.near)}`, { timeout: 30_000 });
  await page.locator(`[data-testid=card-page][data-card-id="${ids.near}"]`).waitFor({ timeout: 30_000 });
  await page.locator(`[data-testid=related-card][data-card-id="${ids.open}"]`).waitFor({ timeout: 60_000 });
}

test('related cards: a card page lists the reader\'s nearest cards, never a stranger\'s, and each opens', async () => {
  const stamp = Date.now();
  const { ids } = await seed(stamp);
  const context = await newContext(browser, DESKTOP);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page, `related-reader-${stamp}@cardchat.test`, PASSWORD);
  await showsRelated(page, ids);
  await opensOne(page, ids);
  assert.deepEqual(errors, []);
  await context.close();
});
