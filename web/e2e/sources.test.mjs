// Sources under each answer: the owner sees the cited cards by number and
// title, each linking to its card page; a visitor of the published chat sees
// the same numbers, the public cards linked and the others as "a card you
// cannot view", and never the private card's id or title.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminGet, APP_URL, COLLECTIONS, DESKTOP, launch, newContext, pageErrors, signIn,
} from './support.mjs';
import { ANSWER_TIMEOUT, completeMessage, demoChatOnCommits, publishFromPage } from './chatsetup.mjs';

let browser;
let chatId;
/** @type {Map<string, any>} the chat's cards by id, as stored */
let cards;

before(async () => {
  browser = await launch();
  // the demo user's own cards on commits, public and private alike: the answer cites both kinds
  const made = await demoChatOnCommits((own) => [...own.filter((c) => c.visibility === 'public').slice(0, 5),
    ...own.filter((c) => c.visibility !== 'public').slice(0, 5)], 'How do I undo or amend my last commit?');
  chatId = made.chatId;
  cards = new Map(made.chosen.map((c) => [c.id, c]));
});
after(async () => {
  await browser?.close();
});

/** The complete answer as stored, and the cards its `sources` name (the owner's card_ids). */
async function storedAnswer() {
  const msg = await completeMessage(chatId);
  const priv = await adminGet(`${COLLECTIONS.chat_private}/${chatId}`);
  const cited = msg.sources.map((/** @type {number} */ n) => ({ n, card: cards.get(priv.card_ids[n - 1]) }));
  assert.ok(cited.length >= 2, `the answer cites cards (${msg.content})`);
  assert.ok(cited.every((c) => c.card), 'every source is a card of the chat');
  assert.ok(cited.some((c) => c.card.visibility === 'public') && cited.some((c) => c.card.visibility !== 'public'),
    'the answer cites a public and a private card');
  return { msg, cited };
}

/** The sources list of the page's answer: [number, text, href] per entry, once every title has loaded. */
async function sourcesOf(page) {
  const list = page.locator('[data-testid=message][data-role=assistant][data-phase=complete] [data-testid=answer-sources]');
  await list.waitFor({ timeout: ANSWER_TIMEOUT });
  await list.getByTestId('answer-sources-open').click(); // folded: no card is read until it is opened
  await page.waitForFunction(() => ![...document.querySelectorAll('[data-testid=answer-source]')]
    .some((li) => li.textContent?.includes('Loading')), null, { timeout: 30_000 });
  return list.getByTestId('answer-source').evaluateAll((lis) => lis.map((li) => {
    const a = li.querySelector('a');
    const text = /** @type {HTMLElement} */ (li.cloneNode(true));
    text.querySelector('[data-testid=pin-controls]')?.remove(); // the owner's (pins.test.mjs)
    return [Number(li.getAttribute('data-n')), text.textContent ?? '', a ? a.getAttribute('href') : null];
  }));
}

/** 1. The owner: every cited card by number and title, each linked to its page. */
async function ownerSeesTheSources(page, cited) {
  await page.goto(`${APP_URL}/chat/${encodeURIComponent(chatId)}`);
  const got = await sourcesOf(page);
  assert.deepEqual(got, cited.map(({ n, card }) => [n, `[${n}] ${card.title}`, `/card/${encodeURIComponent(card.id)}`]));
  const first = page.getByTestId('answer-source-link').first();
  await first.click();
  await page.waitForURL(`${APP_URL}/card/${encodeURIComponent(cited[0].card.id)}`);
}

/** 2. Published; a signed-out visitor sees the public cards linked, the others as a card they cannot view. */
async function visitorSeesWhatTheyMayRead(page, cited) {
  await page.goto(`${APP_URL}/chat/${encodeURIComponent(chatId)}`);
  await publishFromPage(page, chatId);
  const context = await newContext(browser, DESKTOP);
  const visitor = await context.newPage();
  const errors = pageErrors(visitor);
  await visitor.goto(`${APP_URL}/chat/${encodeURIComponent(chatId)}`);
  const got = await sourcesOf(visitor);
  assert.deepEqual(got, cited.map(({ n, card }) => (card.visibility === 'public'
    ? [n, `[${n}] ${card.title}`, `/card/${encodeURIComponent(card.id)}`]
    : [n, `[${n}] A card you cannot view.`, null])));
  const html = await visitor.locator('[data-testid=answer-sources]').innerHTML();
  for (const { card } of cited.filter((c) => c.card.visibility !== 'public')) {
    assert.ok(!html.includes(card.id) && !html.includes(card.title), 'a private card is named to a visitor');
  }
  assert.deepEqual(errors, []);
  await context.close();
}

test('sources under an answer: the owner\'s titles and links, a visitor\'s public cards only', async () => {
  const { cited } = await storedAnswer();
  const context = await newContext(browser, DESKTOP);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page);
  await ownerSeesTheSources(page, cited);
  await visitorSeesWhatTheyMayRead(page, cited);
  assert.deepEqual(errors, []);
  await context.close();
});
