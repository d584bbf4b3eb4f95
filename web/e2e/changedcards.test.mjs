// Edited cards are current: the owner edits two cards of a chat after its
// first answer; the follow-up's answer quotes the new text under the same
// numbers, and the owner's header says "2 cards changed since this chat
// started". A visitor of the published chat is never told.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminGet, adminSet, APP_URL, callFunction, COLLECTIONS, DESKTOP, launch, newContext, pageErrors, signIn, signInRest,
  until,
} from './support.mjs';

const ANSWER_TIMEOUT = 120_000;
const CHANGED = '2 cards changed since this chat started';
let browser;

before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** Answer `index` of the chat once complete. */
function answered(chatId, messageId) {
  return until(`answer ${messageId}`, async () => {
    const m = await adminGet(`${COLLECTIONS.chat_messages}/${messageId}`);
    return m?.status === 'complete' ? m : null;
  }, ANSWER_TIMEOUT);
}

/** The demo user chats over three cards of theirs, edits two after the first answer and asks again. */
async function chatWithEditedCards() {
  const { uid: owner, idToken } = await signInRest();
  const stamp = Date.now();
  const ids = ['kettle', 'teapot', 'cups'].map((k) => `${owner}_e2e-changed-${k}-${stamp}`);
  const write = (id, title, body) => {
    const now = new Date();
    return adminSet(`${COLLECTIONS.cards}/${id}`, { title, body, owner, visibility: 'private', viewers: [], tags: [], created: now, updated: now });
  };
  await write(ids[0], 'Kettle', 'Boil the water for green tea at 80 degrees.');
  await write(ids[1], 'Teapot', 'Warm the teapot with hot water before brewing.');
  await write(ids[2], 'Cups', 'Serve the tea in small cups.');
  const { chat_id: chatId } = await callFunction('createChat', {
    card_ids: ids, initial_message: 'How hot should the water be for green tea?', model: 'offline-extractive',
  }, idToken);
  await answered(chatId, `${chatId}-0001`);
  const numbers = (await adminGet(`${COLLECTIONS.chat_private}/${chatId}`)).card_ids;
  await write(ids[0], 'Kettle', 'Boil the water for green tea at 70 degrees, never hotter.');
  await write(ids[1], 'Teapot', 'Rinse the teapot with hot water before brewing green tea.');
  await callFunction('postMessage', { chat_id: chatId, content: 'How hot should the water be for green tea, again?' }, idToken);
  const again = await until('the follow-up answer', async () => {
    const priv = await adminGet(`${COLLECTIONS.chat_private}/${chatId}`);
    return priv?.cards_changed === 2 ? priv : null;
  }, ANSWER_TIMEOUT);
  assert.deepEqual(again.card_ids, numbers, 'every card keeps its number');
  return { chatId, kettle: numbers.indexOf(ids[0]) + 1 };
}

/** The owner's header counts the cards changed; the follow-up quotes the kettle's new text under its number. */
async function ownerSeesTheCount(page, chatId, kettle) {
  await page.goto(`${APP_URL}/chat/${encodeURIComponent(chatId)}`);
  const line = page.getByTestId('cards-changed');
  await line.waitFor({ timeout: 30_000 });
  assert.equal(await line.textContent(), CHANGED);
  const last = page.locator('[data-testid=message][data-role=assistant][data-phase=complete]').last();
  await until('the follow-up to show', async () => /70 degrees/.test((await last.textContent()) ?? ''), ANSWER_TIMEOUT);
  assert.match((await last.textContent()) ?? '', new RegExp(`\\[${kettle}\\]`));
}

/** Published: a signed-out visitor reads the transcript and never the count. */
async function visitorIsNotTold(chatId) {
  const context = await newContext(browser, DESKTOP);
  const visitor = await context.newPage();
  const errors = pageErrors(visitor);
  await visitor.goto(`${APP_URL}/chat/${encodeURIComponent(chatId)}`);
  await visitor.locator('[data-testid=message][data-role=assistant][data-phase=complete]').nth(1).waitFor({ timeout: 30_000 });
  assert.equal(await visitor.getByTestId('cards-changed').count(), 0);
  assert.ok(!(await visitor.content()).includes('changed since this chat started'));
  assert.deepEqual(errors, []);
  await context.close();
}

test("edited cards: the owner's header counts them, a visitor is never told", async () => {
  const { chatId, kettle } = await chatWithEditedCards();
  const context = await newContext(browser, DESKTOP);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page);
  await ownerSeesTheCount(page, chatId, kettle);
  await page.getByTestId('publish-toggle').check();
  await until('the published flag to reach Firestore',
    async () => (await adminGet(`${COLLECTIONS.chats}/${chatId}`)).published === true, 60_000, 200);
  await visitorIsNotTold(chatId);
  assert.deepEqual(errors, []);
  await context.close();
});
