// The chat page as a browser uses it: Back after opening a chat from the
// list of chats returns to the chat it was opened from, and before it to the
// Cards page with its filter; a chat loaded by its link has the composer
// focused; an answer's Copy puts the answer's text on the clipboard.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { APP_URL, callFunction, DESKTOP, launch, newContext, pageErrors, signIn, signInRest, until } from './support.mjs';
import { answeredChat, completeMessage, writeCards } from './chatsetup.mjs';

const WORD = `quayside${Date.now()}`;
let browser;
let chatId;
/** A second chat of the demo user's, to open from the list. */
let otherId;
let cardId;

before(async () => {
  browser = await launch();
  const { uid, idToken } = await signInRest();
  cardId = `${uid}_e2e-chatpage-${WORD}`;
  await writeCards(uid, [[cardId, `Quayside ${WORD}`, `The ${WORD} crane lifts forty tonnes and is oiled every Monday.`]]);
  // The Cards page's filter asks the server's search, which finds a card once the embedding trigger
  // has indexed it: behind a backlog of earlier tests' writes, that can take longer than the chats below.
  await until(`the search to find the new card ${cardId}`, async () =>
    (await callFunction('searchCards', { text: WORD, scope: 'mine', limit: 50 }, idToken)).cards
      .some((c) => c.id === cardId), 180_000, 3000);
  chatId = await answeredChat(idToken, [cardId], `How much does the ${WORD} crane lift?`);
  otherId = await answeredChat(idToken, [cardId], `When is the ${WORD} crane oiled?`);
});
after(async () => { await browser?.close(); });

async function signedInPage(context) {
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page);
  return { page, errors };
}

const chatIdOf = (page) => decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');

/** The chat's page with its transcript and the list of chats beside it, `id` marked current. */
async function showsTheChat(page, id) {
  await page.waitForURL((url) => url.pathname === `/chat/${id}`, { timeout: 30_000 });
  await page.locator('[data-testid=message][data-role=assistant][data-phase=complete]').first().waitFor({ timeout: 30_000 });
  await page.locator(`[data-testid=chat-list-item][data-chat-id="${id}"][aria-current=page]`).waitFor({ timeout: 30_000 });
}

/** The Cards page filtered on the card's word, then Chats (the latest chat), then another chat from the list; its id. */
async function opensAChatFromTheList(page) {
  await page.goto(`${APP_URL}/?q=${WORD}`);
  await page.locator(`[data-testid=card][data-card-id="${cardId}"]`).waitFor({ timeout: 60_000 });
  await page.getByTestId('nav-chats').click();
  await page.waitForURL((url) => /^\/chat\/[^/]+$/.test(url.pathname), { timeout: 30_000 });
  const latest = chatIdOf(page);
  await showsTheChat(page, latest);
  const next = latest === chatId ? otherId : chatId;
  await page.locator(`[data-testid=chat-list-item][data-chat-id="${next}"]`).click();
  await showsTheChat(page, next);
  return { latest, next };
}

test('Back after opening a chat from the list returns to the chat before it, and then to the Cards page with its filter', async () => {
  const context = await newContext(browser, DESKTOP);
  const { page, errors } = await signedInPage(context);
  const { latest, next } = await opensAChatFromTheList(page);
  await page.goBack();
  await showsTheChat(page, latest);
  assert.equal(await page.locator(`[data-testid=message][data-message-id^="${next}-"]`).count(), 0, 'the other chat is gone from the page');
  await page.goBack();
  await page.waitForURL((url) => url.pathname === '/' && url.searchParams.get('q') === WORD, { timeout: 30_000 });
  assert.equal(await page.getByTestId('card-search').inputValue(), WORD, 'the filter is kept');
  await page.locator(`[data-testid=card][data-card-id="${cardId}"]`).waitFor({ timeout: 60_000 });
  await page.goForward();
  await showsTheChat(page, latest);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a chat opened by its link has the composer focused, ready to type', async () => {
  const context = await newContext(browser, DESKTOP);
  const { page, errors } = await signedInPage(context);
  await page.goto(`${APP_URL}/chat/${chatId}`);
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'composer-input', null, { timeout: 30_000 });
  await page.keyboard.type('Who oils it?');
  assert.equal(await page.getByTestId('composer-input').inputValue(), 'Who oils it?');
  assert.deepEqual(errors, []);
  await context.close();
});

test('an answer\'s Copy puts the answer\'s text on the clipboard', async () => {
  const context = await newContext(browser, DESKTOP);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: APP_URL });
  const { page, errors } = await signedInPage(context);
  const stored = await completeMessage(chatId);
  await page.goto(`${APP_URL}/chat/${chatId}`);
  const answer = page.locator('[data-testid=message][data-role=assistant][data-phase=complete]').first();
  await answer.getByTestId('copy-message').click();
  await answer.getByTestId('copy-message').filter({ hasText: 'Copied' }).waitFor({ timeout: 30_000 });
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, stored.content);
  assert.match(copied, /forty tonnes/);
  assert.deepEqual(errors, []);
  await context.close();
});
