// Issue 21: a user with 10,000 cards. The cards page shows its first screen
// from a page of cards (never the whole collection), counts them with an
// aggregation query, keeps the DOM small however far one scrolls, never says
// "You have no cards yet", and says "Couldn't load your cards — retrying"
// while Firestore cannot be reached (its requests aborted), then recovers;
// the chat list the same.
//
// The cards are seeded as an admin in batched commits with the emulator's
// triggers paused (10,000 embedCard runs would swamp the machine); they
// belong to a user of their own, so the other browser tests see none of them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminWriteMany, APP_URL, COLLECTIONS, ensureUser, launch, newContext, pageErrors, signIn, withTriggersPaused,
} from './support.mjs';

export const BIG = { email: 'big@cardchat.test', password: 'cardchat-big', cards: 10_000 };
const DOM_LIMIT = 3000;
const NO_CARDS = 'You have no cards yet';

const bigCardId = (i) => `big-${String(i).padStart(5, '0')}`;

function bigCard(uid, i) {
  const at = new Date('2026-01-01T00:00:00Z');
  return {
    title: `Note ${String(i).padStart(5, '0')}`,
    body: `Lantern log ${i}. The wick was trimmed at dusk; the glass was clean. Entry ${i % 97} of the keeper's book.`,
    owner: uid, visibility: 'private', viewers: [], tags: ['big', `shelf-${i % 20}`], created: at, updated: at,
  };
}

let browser;
let uid;
before(async () => {
  ({ uid } = await ensureUser(BIG.email, BIG.password));
  const writes = Array.from({ length: BIG.cards }, (_, i) => [`${COLLECTIONS.cards}/${bigCardId(i)}`, bigCard(uid, i)]);
  await withTriggersPaused(() => adminWriteMany(writes));
  browser = await launch();
});
after(async () => {
  await browser?.close();
  const deletes = Array.from({ length: BIG.cards }, (_, i) => [`${COLLECTIONS.cards}/${bigCardId(i)}`, null]);
  await withTriggersPaused(() => adminWriteMany(deletes));
});

/** Counts every node of the document (elements, text, comments). */
function domNodes() {
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
  let n = 0;
  while (walker.nextNode()) n++;
  return n;
}

/** Records, from the first paint on, whether the page ever said it has no cards. */
function watchForNoCards(text) {
  const w = /** @type {any} */ (window);
  w.__saidNoCards = false;
  new MutationObserver(() => {
    if (document.body?.textContent?.includes(text)) w.__saidNoCards = true;
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

async function firstScreenRenders(page) {
  await page.addInitScript(watchForNoCards, NO_CARDS);
  await signIn(page, BIG.email, BIG.password);
  await page.locator('[data-testid=card]').first().waitFor({ timeout: 60_000 });
  const nodes = await page.evaluate(domNodes);
  assert.ok(nodes < DOM_LIMIT, `the first screen has ${nodes} DOM nodes`);
}

async function theCountShowsAll(page) {
  await page.goto(`${APP_URL}/?scope=yours`);
  await page.waitForFunction(() => /^\d+ cards? shown/.test(document.querySelector('[data-testid=card-count]')?.textContent ?? ''),
    null, { timeout: 60_000 });
  assert.match(await page.getByTestId('card-count').textContent(), new RegExp(`^${BIG.cards} cards shown`));
  await page.waitForFunction((n) => document.querySelector('[data-testid=scope-yours]')?.textContent === `Yours (${n})`, BIG.cards,
    { timeout: 30_000 });
  const first = await page.locator('[data-testid=card]').first().getAttribute('data-card-id');
  assert.equal(first, bigCardId(0), 'in title order');
}

/** Scrolls far down: later pages arrive, and the DOM holds only what is on screen. */
async function scrollingKeepsTheDomSmall(page) {
  let deepest = 0;
  for (let step = 0; step < 12; step++) {
    await page.evaluate(() => window.scrollBy(0, 4000));
    await page.waitForFunction((seen) => {
      const cards = [...document.querySelectorAll('[data-testid=card]')];
      return cards.some((c) => Number(c.getAttribute('data-card-id')?.slice(4)) > seen);
    }, deepest, { timeout: 30_000 });
    deepest = Math.max(...await page.locator('[data-testid=card]').evaluateAll((els) =>
      els.map((e) => Number(e.getAttribute('data-card-id')?.slice(4)))));
    const nodes = await page.evaluate(domNodes);
    assert.ok(nodes < DOM_LIMIT, `after scrolling to card ${deepest}, ${nodes} DOM nodes`);
  }
  assert.ok(deepest > 200, `scrolling reached card ${deepest}`);
  assert.equal(await page.locator('[data-testid=card]').first().getAttribute('data-card-id') === bigCardId(0), false,
    'the first cards left the DOM');
}

/** Firestore unreachable (its requests aborted): the page says so and retries; reachable again: the cards. */
async function aFailureSaysSoAndRecovers(page) {
  const firestore = '**/google.firestore.v1.Firestore/**';
  await page.route(firestore, (route) => route.abort());
  await page.goto(`${APP_URL}/?scope=yours`);
  const failed = page.getByTestId('load-failed');
  await failed.waitFor({ timeout: 60_000 });
  assert.match(await failed.textContent(), /^Couldn’t load your cards — retrying \(.+\)$/);
  await page.unroute(firestore);
  await page.locator('[data-testid=card]').first().waitFor({ timeout: 90_000 });
}

/** The same for the chat list: unreachable, it says so rather than "No chats yet"; reachable, the truth. */
async function theChatListSaysSoToo(page) {
  const firestore = '**/google.firestore.v1.Firestore/**';
  await page.route(firestore, (route) => route.abort());
  await page.goto(`${APP_URL}/chat/`);
  const failed = page.getByTestId('load-failed');
  await failed.waitFor({ timeout: 60_000 });
  assert.match(await failed.textContent(), /^Couldn’t load your chats — retrying \(.+\)$/);
  assert.equal(await page.getByTestId('no-chats').count(), 0);
  await page.unroute(firestore);
  await page.getByTestId('no-chats').waitFor({ timeout: 90_000 });
}

test('10,000 cards: the first screen, the count, a small DOM after scrolling, never "no cards"', async () => {
  const context = await newContext(browser);
  const page = await context.newPage();
  const errors = pageErrors(page);
  try {
    await firstScreenRenders(page);
    await theCountShowsAll(page);
    await scrollingKeepsTheDomSmall(page);
    await aFailureSaysSoAndRecovers(page);
    await theChatListSaysSoToo(page);
    assert.equal(await page.evaluate(() => /** @type {any} */ (window).__saidNoCards), false, `the page said "${NO_CARDS}"`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
