// Review cards: from the Cards page (its filter) and from a saved collection, the pairs of the
// reader's cards that say the same thing or may disagree, each with its reason; "Open both" shows
// both texts, "Merge into one" opens the editor prefilled with both, "Mark … outdated" tags the card
// (and the pair leaves the next review). The page passes axe with a pair opened.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import {
  adminGet, adminSet, APP_URL, callFunction, COLLECTIONS, DESKTOP, ensureUser, launch, newContext, pageErrors, signIn, until,
} from './support.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PASSWORD = 'review-pass-1';
const SETUP = 'Cardchat functions run on Python VERSION; install it before starting the emulators.';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** A reader with a card copied word for word, two setup cards that differ in a version, and one on bread. */
async function seed(stamp) {
  const reader = await ensureUser(`review-reader-${stamp}@cardchat.test`, PASSWORD);
  const now = new Date();
  const cards = {
    gate: ['Harbour gate', 'The harbour gate closes two hours before high tide.'],
    gateCopy: ['Harbour gate', 'The harbour gate closes two hours before high tide.'],
    old: ['Python setup', SETUP.replace('VERSION', '3.11')],
    new: ['Python setup, updated', SETUP.replace('VERSION', '3.12')],
    bread: ['Bread', 'Sourdough rises overnight in a cool kitchen.'],
  };
  const ids = {};
  for (const [key, [title, body]] of Object.entries(cards)) {
    ids[key] = `${reader.uid}_e2e-review-${key}-${stamp}`;
    await adminSet(`${COLLECTIONS.cards}/${ids[key]}`,
      { title, body, owner: reader.uid, visibility: 'private', viewers: [], tags: [], created: now, updated: now });
  }
  const collectionId = `review-${stamp}`;
  await adminSet(`${COLLECTIONS.collections}/${collectionId}`, {
    owner: reader.uid, name: 'Setup', instructions: '', card_ids: [ids.old, ids.new, ids.bread], created: now, updated: now,
  });
  // The version pair needs the cards' vectors: wait until the embedding worker has indexed them.
  await until('both pairs found', async () => {
    const r = await callFunction('findOverlaps', {}, reader.idToken);
    return r.pairs.length === 2;
  }, 180_000, 3000);
  return { reader, ids, collectionId };
}

/** The Cards page's Review button opens the review of its filter: both pairs, with their reasons. */
async function reviewsFromTheCardsPage(page, ids) {
  await page.goto(`${APP_URL}/`);
  await page.getByTestId('review-cards').click();
  await page.waitForURL((url) => url.pathname === '/review', { timeout: 30_000 });
  // findOverlaps' first call starts its function worker: slow on a loaded runner.
  await page.getByTestId('overlap-pair').nth(1).waitFor({ timeout: 150_000 });
  const pairs = await page.getByTestId('overlap-pair').evaluateAll((els) => els.map((e) => ({
    kind: e.getAttribute('data-kind'), ids: [e.getAttribute('data-a'), e.getAttribute('data-b')].sort(),
    reason: e.querySelector('[data-testid=overlap-reason]')?.textContent,
  })));
  assert.deepEqual(pairs.find((p) => p.kind === 'duplicate'), { kind: 'duplicate', ids: [ids.gate, ids.gateCopy].sort(), reason: 'same text' });
  const conflict = pairs.find((p) => p.kind === 'may_conflict');
  assert.deepEqual(conflict?.ids, [ids.new, ids.old].sort());
  assert.ok(['3.11 vs 3.12', '3.12 vs 3.11'].includes(conflict.reason ?? ''), conflict.reason); // the pair's order is the index's
}

/** "Open both" shows both texts; axe finds nothing on the page so opened. */
async function opensBothAndPassesAxe(page) {
  const pair = page.locator('[data-testid=overlap-pair][data-kind=may_conflict]');
  await pair.getByTestId('overlap-open').click();
  assert.equal(await pair.getByTestId('overlap-open').getAttribute('aria-expanded'), 'true');
  const both = await pair.getByTestId('overlap-both').textContent();
  assert.ok(both.includes('Python 3.11') && both.includes('Python 3.12'), both);
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => (await window.axe.run(document)).violations.map((v) => `${v.id}: ${v.help}`));
  assert.deepEqual(violations, []);
}

/** "Merge into one" opens a new card prefilled with both texts, saved by nobody yet. */
async function mergesIntoTheEditor(page) {
  await page.locator('[data-testid=overlap-pair][data-kind=may_conflict]').getByTestId('overlap-merge').click();
  await page.waitForURL((url) => url.pathname === '/new', { timeout: 30_000 });
  const body = await page.getByTestId('edit-body').inputValue();
  assert.ok(body.includes('Python 3.11') && body.includes('Python 3.12'), body);
  assert.match(await page.getByTestId('edit-title').inputValue(), /^Python setup/);
}

/** From the saved collection: only its pair; marking the older card outdated tags it, and the pair goes. */
async function marksOneOutdatedFromTheCollection(page, ids, collectionId, idToken) {
  await page.goto(`${APP_URL}/collections/${encodeURIComponent(collectionId)}`);
  await page.getByTestId('review-collection').click();
  await page.waitForURL((url) => url.pathname === '/review', { timeout: 30_000 });
  await page.getByTestId('overlap-pair').first().waitFor({ timeout: 150_000 });
  assert.equal(await page.getByTestId('overlap-pair').count(), 1);
  await page.locator(`[data-testid=overlap-outdated][data-card-id="${ids.old}"]`).click();
  await page.getByTestId('overlap-status').filter({ hasText: 'marked outdated' }).waitFor({ timeout: 30_000 });
  const card = await adminGet(`${COLLECTIONS.cards}/${ids.old}`);
  assert.deepEqual(card.tags, ['outdated']);
  await until('the pair to leave the review', async () =>
    (await callFunction('findOverlaps', { collection_id: collectionId }, idToken)).pairs.length === 0, 120_000, 2000);
}

test('review cards: pairs from the Cards page and a collection, opened, merged and marked outdated', async () => {
  const stamp = Date.now();
  const { reader, ids, collectionId } = await seed(stamp);
  const context = await newContext(browser, DESKTOP);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page, `review-reader-${stamp}@cardchat.test`, PASSWORD);
  await reviewsFromTheCardsPage(page, ids);
  await opensBothAndPassesAxe(page);
  await mergesIntoTheEditor(page);
  await marksOneOutdatedFromTheCollection(page, ids, collectionId, reader.idToken);
  assert.deepEqual(errors, []);
  await context.close();
});
