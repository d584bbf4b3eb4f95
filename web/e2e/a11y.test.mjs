// An accessibility pass over every page the app has: axe-core runs in the page
// and any violation fails the story, named with its rule, impact and the
// elements it found. Pages are checked once they show what they are for (the
// list, the answer, the form), not while they say "Loading…".
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { answeredChat, publishAsAdmin } from './chatsetup.mjs';
import {
  adminGet, adminList, adminSet, APP_URL, callFunction, COLLECTIONS, ensureUser, launch, newContext, pageErrors, PHONE, screenshot,
  signIn, signInRest, until,
} from './support.mjs';

// Evaluated rather than added as a <script>: the app's CSP refuses inline scripts, and the page is
// checked under its real CSP rather than with it bypassed.
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const VIEWER = { email: 'a11y-viewer@cardchat.test', password: 'a11y-viewer-1' };

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/**
 * Runs axe over the whole page and adds each violation to `found`, named with
 * the page, so that a story reports every page's violations at once.
 */
async function axeOn(page, name, found) {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document);
    return result.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 5),
    }));
  });
  for (const v of violations) found.push(`${name}: ${v.id} (${v.impact}): ${v.help} at ${v.targets.join(' | ')}`);
}

/** Opens `path` (a fresh load, as a link or a reload would) and waits for `ready`. */
async function openPage(page, path, ready) {
  await page.goto(`${APP_URL}${path}`);
  await page.getByTestId(ready).first().waitFor({ timeout: 60_000 });
}

/** Some of the demo user's cards, an answered chat of theirs over them, and a saved collection of them. */
async function demoChat() {
  const { uid, idToken } = await signInRest();
  const own = (await adminList(COLLECTIONS.cards)).filter((c) => c.owner === uid).slice(0, 3);
  assert.ok(own.length, 'the seed gave the demo user cards');
  const chatId = await answeredChat(idToken, own.map((c) => c.id), 'What is a commit?');
  const collectionId = `a11y-${Date.now()}`;
  await adminSet(`${COLLECTIONS.collections}/${collectionId}`, {
    owner: uid, name: 'Commits', instructions: '', card_ids: own.map((c) => c.id), created: new Date(), updated: new Date(),
  });
  return { cardId: own[0].id, chatId, collectionId, idToken };
}

async function checkCardsPages(page, cardId, found) {
  await openPage(page, '/', 'card-count');
  await axeOn(page, 'the Cards page', found);
  await page.getByTestId('chat-with-cards').click();
  await page.getByTestId('start-chat-dialog').waitFor();
  await axeOn(page, 'the start dialog', found);
  await openPage(page, `/card/${encodeURIComponent(cardId)}`, 'card-page');
  await axeOn(page, 'a card page', found);
  await openPage(page, `/card/${encodeURIComponent(cardId)}/edit`, 'card-editor');
  await axeOn(page, 'the card editor', found);
  await openPage(page, '/new', 'card-editor');
  await axeOn(page, 'a new card', found);
  await openPage(page, '/import', 'import-folder');
  await axeOn(page, 'the Import page', found);
}

async function checkChatPages(page, chatId, found) {
  // "/chat/" opens the owner's latest chat beside the list of them
  await openPage(page, '/chat/', 'chat-title');
  await axeOn(page, 'the chat list', found);
  await openPage(page, `/chat/${encodeURIComponent(chatId)}`, 'rate-up');
  await axeOn(page, 'a chat, as its owner', found);
  await screenshot(page, 'a11y-chat-owner.png');
  await page.getByTestId('share-chat').click();
  await page.getByTestId('share-dialog').waitFor();
  await axeOn(page, 'the share dialog', found);
  await page.keyboard.press('Escape');
}

/** "Download transcript" is one of the header's actions, above the transcript rather than over it. */
async function checkTranscriptButtonPlace(page) {
  assert.equal(await page.locator('.chat-header [data-testid=download-transcript]').count(), 1,
    'the transcript download sits in the chat header');
  const button = await page.getByTestId('download-transcript').boundingBox();
  const transcript = await page.getByTestId('transcript').boundingBox();
  assert.ok(button && transcript && button.y + button.height <= transcript.y, 'the transcript download covers no message');
}

/** The thumbs are drawn icons named for what they do (no emoji, which shows as a box without an emoji font). */
async function checkRatingButtons(page, chatId) {
  const good = page.getByRole('button', { name: 'Good answer', exact: true });
  const poor = page.getByRole('button', { name: 'Poor answer', exact: true });
  for (const thumb of [good, poor]) {
    assert.equal((await thumb.textContent())?.trim(), '', 'an icon, no text glyph');
    assert.equal(await thumb.locator('svg').count(), 1);
  }
  await good.click();
  await page.waitForSelector('[data-testid=rate-up][aria-pressed=true]', { timeout: 30_000 });
  const rated = await until('the rating to reach answer_feedback',
    () => adminGet(`${COLLECTIONS.answer_feedback}/${chatId}-0001`), 60_000, 300);
  assert.equal(rated.rating, 'up');
}

async function checkAccountPages(page, collectionId, found) {
  await openPage(page, '/collections', 'collections');
  await axeOn(page, 'Collections', found);
  await openPage(page, `/collections/${encodeURIComponent(collectionId)}`, 'collection-title');
  await axeOn(page, 'a collection', found);
  await openPage(page, `/review?collection=${encodeURIComponent(collectionId)}`, 'review');
  // A callable's first call starts its function worker and loads the model: slow on a loaded runner.
  await page.locator('[data-testid=review-body][data-loaded=true]').waitFor({ timeout: 150_000 });
  await axeOn(page, 'Review cards', found);
  await openPage(page, '/settings', 'mcp-url');
  await axeOn(page, 'Settings', found);
  await openPage(page, '/usage', 'usage-page');
  await axeOn(page, 'Usage', found);
  await openPage(page, '/check', 'draft-page');
  await axeOn(page, 'Check a draft', found);
  await page.getByLabel('Draft').fill('A commit records a snapshot of the project. Rebasing rewrites every commit it replays.');
  await page.getByTestId('draft-check').click();
  await page.getByTestId('draft-summary').waitFor({ timeout: 150_000 });
  await axeOn(page, 'Check a draft, checked', found);
  await page.goto(`${APP_URL}/no/such/page`);
  await page.getByRole('heading', { name: 'Not found' }).waitFor();
  await axeOn(page, 'a page not found', found);
}

/** The layout on a phone differs (the chat list is an overlay, the header wraps): the Cards page and a chat again. */
async function checkOnAPhone(page, chatId, found) {
  await page.setViewportSize(PHONE);
  await openPage(page, '/', 'card-count');
  await axeOn(page, 'the Cards page on a phone', found);
  await openPage(page, `/chat/${encodeURIComponent(chatId)}`, 'rate-up');
  await axeOn(page, 'a chat on a phone, as its owner', found);
  await screenshot(page, 'a11y-chat-owner-phone.png');
}

test('every page a signed-in owner opens passes axe', async () => {
  const { cardId, chatId, collectionId } = await demoChat();
  const context = await newContext(browser);
  const page = await context.newPage();
  const errors = pageErrors(page);
  const found = [];
  await signIn(page);
  await checkCardsPages(page, cardId, found);
  await checkChatPages(page, chatId, found);
  await checkTranscriptButtonPlace(page);
  await checkRatingButtons(page, chatId);
  await checkAccountPages(page, collectionId, found);
  await checkOnAPhone(page, chatId, found);
  assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
  assert.deepEqual(errors, []);
  await context.close();
});

async function checkSignIn(page, found) {
  await openPage(page, '/', 'signin-form');
  await axeOn(page, 'sign-in', found);
}

async function checkVisitorChat(page, chatId, found) {
  await openPage(page, `/chat/${encodeURIComponent(chatId)}`, 'read-only-note');
  await page.getByTestId('message-body').first().waitFor({ timeout: 60_000 });
  await axeOn(page, 'a published chat, as a visitor', found);
}

async function checkViewerChat(page, chatId, found) {
  await signIn(page, VIEWER.email, VIEWER.password);
  await openPage(page, `/chat/${encodeURIComponent(chatId)}`, 'continue-chat');
  await page.getByTestId('message-body').first().waitFor({ timeout: 60_000 });
  await axeOn(page, 'a chat shared with the reader', found);
}

/** A page whose chunk does not arrive (a deploy replaced it) says so and offers a reload, which recovers. */
async function checkChunkNotArrived(page, chatId, found) {
  const chatChunk = /\/assets\/chat-[\w-]+\.js$/;
  await page.route(chatChunk, (route) => route.abort());
  await openPage(page, `/chat/${encodeURIComponent(chatId)}`, 'page-load-error');
  await axeOn(page, 'a page whose chunk did not arrive', found);
  await page.unroute(chatChunk);
  await page.getByTestId('page-load-reload').click();
  await page.getByTestId('read-only-note').waitFor({ timeout: 60_000 });
}

test('the pages of readers who are not the owner pass axe: sign-in, a published chat, one whose chunk did not arrive, a shared one', async () => {
  const { chatId, idToken } = await demoChat();
  await publishAsAdmin(chatId);
  await ensureUser(VIEWER.email, VIEWER.password);
  await callFunction('shareChat', { chat_id: chatId, add: [VIEWER.email] }, idToken);
  const context = await newContext(browser);
  const page = await context.newPage();
  const errors = pageErrors(page);
  const found = [];
  await checkSignIn(page, found);
  await checkVisitorChat(page, chatId, found);
  await checkChunkNotArrived(page, chatId, found);
  await checkViewerChat(page, chatId, found);
  assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
  assert.deepEqual(errors, []);
  await context.close();
});
