// Check a draft: the reader pastes a draft on the page the nav opens; each claim comes back
// supported by one of their cards, conflicting with one (another number), or unsupported, each
// card linked to its page with the passage that decided, and never a card of someone else's.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminSet, APP_URL, callFunction, COLLECTIONS, DESKTOP, ensureUser, launch, newContext, pageErrors, signIn, until,
} from './support.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const PASSWORD = 'draft-pass-1';
const DRAFT = [
  'A stunt kite has two lines and turns left when you pull the left line.',
  'Stunt kite lines are 40 metres long for a beginner.',
  'Sourdough bread needs a starter fed with flour every day.',
].join(' ');

/** A reader with two kite cards; a stranger with a private card that says the third claim. */
async function seed(stamp) {
  const reader = await ensureUser(`draft-reader-${stamp}@cardchat.test`, PASSWORD);
  const stranger = await ensureUser(`draft-stranger-${stamp}@cardchat.test`, PASSWORD);
  const now = new Date();
  const cards = {
    turn: [reader.uid, 'Flying a stunt kite', 'A stunt kite has two lines and turns left when you pull the left line.'],
    lines: [reader.uid, 'Stunt kite lines', 'Stunt kite lines are 25 metres long for a beginner.'],
    bread: [stranger.uid, 'Bread', 'Sourdough bread needs a starter fed with flour every day.'],
  };
  const ids = {};
  for (const [key, [owner, title, body]] of Object.entries(cards)) {
    ids[key] = `${owner}_e2e-draft-${key}-${stamp}`;
    await adminSet(`${COLLECTIONS.cards}/${ids[key]}`, { title, body, owner, visibility: 'private', viewers: [], tags: [], created: now, updated: now });
  }
  // The reader's index takes the cards once they are embedded: wait for the server to judge with both.
  await until('both kite cards in the draft check', async () => {
    const { claims } = await callFunction('checkDraft', { text: DRAFT }, reader.idToken);
    return claims[0]?.verdict === 'supported' && claims[1]?.verdict === 'conflicting';
  }, 180_000, 3000);
  return ids;
}

/** The nav opens the page; the draft is typed, counted and checked. */
async function checkTheDraft(page) {
  await page.goto(`${APP_URL}/`);
  await page.getByTestId('nav-check').click();
  await page.getByTestId('draft-page').waitFor({ timeout: 60_000 });
  assert.equal(await page.getByTestId('nav-check').getAttribute('aria-current'), 'page');
  assert.equal(await page.getByTestId('draft-check').isDisabled(), true, 'nothing to check yet');
  await page.getByLabel('Draft').fill(DRAFT);
  assert.match(await page.getByTestId('draft-count').textContent() ?? '', new RegExp(`^${DRAFT.length} / 20,000 characters`));
  await page.getByTestId('draft-check').click();
  // checkDraft's first call starts its function worker and loads the model: slow on a loaded runner.
  await page.getByTestId('draft-summary').waitFor({ timeout: 150_000 });
}

/** Each claim's verdict in words, its cards linked with their passages; the stranger's card nowhere. */
async function showsVerdicts(page, ids) {
  const claims = page.getByTestId('draft-claim');
  assert.deepEqual(await claims.evaluateAll((els) => els.map((e) => e.getAttribute('data-verdict'))),
    ['supported', 'conflicting', 'unsupported']);
  assert.match(await claims.nth(0).getByTestId('draft-verdict').textContent() ?? '', /Supported: a card says this/);
  assert.match(await claims.nth(1).getByTestId('draft-verdict').textContent() ?? '', /Conflicting: a card says otherwise/);
  assert.match(await claims.nth(1).textContent() ?? '', /25 metres long/);
  assert.match(await claims.nth(2).getByTestId('draft-verdict').textContent() ?? '', /Unsupported: no card says this/);
  const shown = await page.getByTestId('draft-card').evaluateAll((els) => els.map((e) => e.getAttribute('data-card-id')));
  assert.ok(shown.includes(ids.turn) && shown.includes(ids.lines), `the kite cards: ${shown}`);
  assert.ok(!shown.includes(ids.bread), 'never the stranger\'s card');
  await claims.nth(1).getByRole('link', { name: 'Stunt kite lines' }).click();
  await page.locator(`[data-testid=card-page][data-card-id="${ids.lines}"]`).waitFor({ timeout: 30_000 });
}

test('check a draft: each claim supported, conflicting or unsupported by the reader\'s own cards, each card linked', async () => {
  const stamp = Date.now();
  const ids = await seed(stamp);
  const context = await newContext(browser, DESKTOP);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page, `draft-reader-${stamp}@cardchat.test`, PASSWORD);
  await checkTheDraft(page);
  await showsVerdicts(page, ids);
  assert.deepEqual(errors, []);
  await context.close();
});
