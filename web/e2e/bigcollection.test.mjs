// A big collection: a user with 10,000 cards. The cards page shows its first screen
// from a page of cards (never the whole collection), counts them with an
// aggregation query, keeps the DOM small however far one scrolls, never says
// "You have no cards yet", and says "Couldn't load your cards — retrying"
// while Firestore cannot be reached (its requests aborted), then recovers;
// the chat list the same. Typing a word only a card far past the loaded
// pages holds finds it (searchCards), and "Chat with all 10000 cards" makes
// a chat from the query, which the server resolves to all 10,000.
//
// The cards are seeded as an admin in batched commits with the emulator's
// triggers paused (10,000 embedCard runs would swamp the machine); they
// belong to a user of their own, so the other browser tests see none of them.
// Their retrieval index is built once, as an operator would (reindex).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminGet, adminSet, adminWriteMany, APP_URL, COLLECTIONS, ensureUser, launch, modelPickerReady, newContext, pageErrors,
  reindexOwner, signIn, withTriggersPaused,
} from './support.mjs';

export const BIG = { email: 'big@cardchat.test', password: 'cardchat-big', cards: 10_000 };
const DOM_LIMIT = 3000;
const NO_CARDS = 'You have no cards yet';
/** A word one card holds, far past every page the browser loads: only the server's search can find it. */
const RARE_WORD = 'quillwort';
const RARE_CARD = 9876;

const bigCardId = (i) => `big-${String(i).padStart(5, '0')}`;

function bigCard(uid, i) {
  const at = new Date('2026-01-01T00:00:00Z');
  return {
    title: `Note ${String(i).padStart(5, '0')}`,
    body: `Lantern log ${i}. The wick was trimmed at dusk; the glass was clean. Entry ${i % 97} of the keeper's book.`
      + (i === RARE_CARD ? ` A sprig of ${RARE_WORD} pressed between the pages.` : ''),
    owner: uid, visibility: 'private', viewers: [], tags: ['big', `shelf-${i % 20}`], created: at, updated: at,
  };
}

let browser;
let uid;
before(async () => {
  ({ uid } = await ensureUser(BIG.email, BIG.password));
  const writes = Array.from({ length: BIG.cards }, (_, i) => [`${COLLECTIONS.cards}/${bigCardId(i)}`, bigCard(uid, i)]);
  await withTriggersPaused(() => adminWriteMany(writes));
  await adminSet(`${COLLECTIONS.users}/${uid}`, { may_use_ai: true, admin: false });
  await reindexOwner(uid);
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
  await page.goto(`${APP_URL}/?scope=mine`);
  await page.waitForFunction(() => /^\d+ cards? shown/.test(document.querySelector('[data-testid=card-count]')?.textContent ?? ''),
    null, { timeout: 60_000 });
  assert.match(await page.getByTestId('card-count').textContent(), new RegExp(`^${BIG.cards} cards shown`));
  await page.waitForFunction((n) => document.querySelector('[data-testid=scope-mine]')?.textContent === `Mine (${n})`, BIG.cards,
    { timeout: 30_000 });
  const first = await page.locator('[data-testid=card]').first().getAttribute('data-card-id');
  assert.equal(first, bigCardId(0), 'in title order');
}

/**
 * Scrolls far down, past 8 pages of 50: later pages arrive, and the DOM holds
 * only what is on screen. Scrolls until that card, not a fixed number of
 * times: a scroll made while the next page is on its way stops at the end of
 * what is loaded, so how far 12 scrolls get depends on the machine's speed.
 */
async function scrollingKeepsTheDomSmall(page) {
  const target = 400;
  let deepest = 0;
  for (let step = 0; deepest <= target; step++) {
    assert.ok(step < 200, `after ${step} scrolls the deepest card is ${deepest}`);
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
  assert.equal(await page.locator('[data-testid=card]').first().getAttribute('data-card-id') === bigCardId(0), false,
    'the first cards left the DOM');
}

/** Firestore unreachable (its requests aborted): the page says so and retries; reachable again: the cards. */
async function aFailureSaysSoAndRecovers(page) {
  const firestore = '**/google.firestore.v1.Firestore/**';
  await page.route(firestore, (route) => route.abort());
  await page.goto(`${APP_URL}/?scope=mine`);
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

/** Typing a word only an unloaded card holds: searchCards finds it, and the list shows it. */
async function aSearchFindsAnUnloadedCard(page) {
  await page.goto(`${APP_URL}/?scope=mine`);
  await page.locator('[data-testid=card]').first().waitFor({ timeout: 60_000 });
  const rare = page.locator(`[data-testid=card][data-card-id="${bigCardId(RARE_CARD)}"]`);
  assert.equal(await rare.count(), 0, 'the card is not among those loaded');
  const answered = page.waitForResponse((r) => r.url().endsWith('/searchCards') && r.request().method() === 'POST', { timeout: 60_000 });
  await page.getByTestId('card-search').fill(RARE_WORD);
  const { result } = await (await answered).json();
  assert.equal(result.cards[0]?.id, bigCardId(RARE_CARD), 'searchCards ranks it first');
  assert.equal(result.matching, 1);
  await rare.waitFor({ timeout: 30_000 });
  await page.waitForFunction((w) => document.querySelector('[data-testid=card-count]')?.textContent?.startsWith(`1 card match “${w}”`),
    RARE_WORD, { timeout: 30_000 });
}

/** "Chat with all 10000 cards" sends the query, not 10,000 ids; the server resolves it to all of them (owner-only records). */
async function chatWithAllTakesThemAll(page) {
  await page.goto(`${APP_URL}/?scope=mine`);
  await page.waitForFunction((n) => document.querySelector('[data-testid=chat-with-cards]')?.textContent === `Chat with all ${n} cards`
    && !(/** @type {HTMLButtonElement} */ (document.querySelector('[data-testid=chat-with-cards]'))).disabled, BIG.cards, { timeout: 60_000 });
  await page.getByTestId('chat-with-cards').click();
  await page.getByTestId('start-chat-dialog').waitFor();
  await page.waitForFunction(modelPickerReady, null, { timeout: 30_000 });
  const offline = await page.locator('[data-testid=model-picker] option[data-offline=true]').first().getAttribute('value');
  await page.getByTestId('model-picker').selectOption(offline);
  await page.getByTestId('start-message').fill('When was the wick trimmed?');
  const sent = page.waitForRequest((r) => r.url().endsWith('/createChat') && r.method() === 'POST', { timeout: 30_000 });
  await page.getByTestId('start-submit').click();
  const request = (await sent).postDataJSON().data;
  assert.equal(request.card_ids, undefined, 'no ids are sent');
  assert.deepEqual(request.query, { scope: 'mine' });
  await page.waitForURL(/\/chat\/[^/]+$/, { timeout: 120_000 });
  const chatId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  const source = await adminGet(`${COLLECTIONS.chat_sources}/${chatId}`);
  assert.deepEqual(source?.collection_query, request.query, 'follow-ups resolve the query again');
  assert.deepEqual(source?.card_ids, []);
  const priv = await adminGet(`${COLLECTIONS.chat_private}/${chatId}`);
  assert.deepEqual(priv?.collection_query, request.query);
  assert.equal(priv?.cards_considered, BIG.cards, 'every card was ranked');
  assert.equal(priv?.card_count_requested, BIG.cards);
}

test('10,000 cards: the first screen, the count, a small DOM after scrolling, never "no cards", a search, chat with all', async () => {
  const context = await newContext(browser);
  const page = await context.newPage();
  const errors = pageErrors(page);
  try {
    await firstScreenRenders(page);
    await theCountShowsAll(page);
    await scrollingKeepsTheDomSmall(page);
    await aFailureSaysSoAndRecovers(page);
    await theChatListSaysSoToo(page);
    await aSearchFindsAnUnloadedCard(page);
    await chatWithAllTakesThemAll(page);
    assert.equal(await page.evaluate(() => /** @type {any} */ (window).__saidNoCards), false, `the page said "${NO_CARDS}"`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
