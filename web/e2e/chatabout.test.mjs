// "Chat about this card": from a card's page, a chat whose hidden background pins that card (first,
// whatever the question) and fills the rest from the reader's own cards; the chat answers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminGet, adminList, APP_URL, COLLECTIONS, DESKTOP, launch, newContext, pageErrors, pickOfflineModel, signIn,
  signInRest, until,
} from './support.mjs';

let browser;
/** @type {any} a card of the demo user's, on commits */
let card;
let uid;

before(async () => {
  browser = await launch();
  ({ uid } = await signInRest());
  const own = (await adminList(COLLECTIONS.cards)).filter((c) => c.owner === uid);
  card = own.find((c) => /commit/i.test(c.title)) ?? own[0];
});
after(async () => {
  await browser?.close();
});

/** Opens the card's page and starts a chat about it with a question on something else entirely. */
async function startFromTheCard(page) {
  await page.goto(`${APP_URL}/card/${encodeURIComponent(card.id)}`);
  await page.getByTestId('card-page').waitFor({ timeout: 30_000 });
  await page.getByTestId('chat-about-card').click();
  const dialog = page.getByTestId('start-chat-dialog');
  await dialog.waitFor();
  assert.equal(await dialog.locator('h2').textContent(), 'Chat about this card');
  await pickOfflineModel(page);
  await page.getByTestId('start-message').fill('Which lighthouse lenses were ground in Paris?');
  await page.getByTestId('start-submit').click();
  await page.waitForURL(/\/chat\/[^/]+$/, { timeout: 60_000 });
  return decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
}

test('chat about this card: pinned first, the rest from the reader\'s own cards', async () => {
  const context = await newContext(browser, DESKTOP);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page);
  const chatId = await startFromTheCard(page);
  const priv = await adminGet(`${COLLECTIONS.chat_private}/${chatId}`);
  assert.equal(priv.card_ids[0], card.id, 'the card is first in the background');
  assert.deepEqual(priv.pinned_cards, [card.id]);
  assert.equal(priv.collection_query?.scope, 'mine');
  assert.ok(priv.card_ids.length > 1, 'the rest is filled from the reader\'s cards');
  const cards = new Map((await adminList(COLLECTIONS.cards)).map((c) => [c.id, c]));
  assert.ok(priv.card_ids.every((/** @type {string} */ id) => cards.get(id)?.owner === uid), 'only the reader\'s own cards');
  await until('the answer', async () => (await adminList(COLLECTIONS.chat_messages))
    .some((m) => m.chat === chatId && m.role === 'assistant' && m.status === 'complete'), 120_000, 500);
  await page.locator('[data-testid=message][data-role=assistant][data-phase=complete]').waitFor({ timeout: 60_000 });
  assert.deepEqual(errors, []);
  await context.close();
});
