// Whose cards the Cards page shows: a new user's own, and others' only by a
// choice the page names. A stranger's public card exists and is not listed;
// the user follows the stranger from that card, sees "<stranger>'s public
// cards" as a source, chats over it, and sees "no public cards now" once the
// stranger made them private. Cards shared with the user are a source of
// their own, holding a sharer's cards only once the user accepted that
// sharer; stopping a sharer takes their cards out of it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminGet, adminSet, APP_URL, COLLECTIONS, ensureUser, launch, modelPickerReady, newContext, pageErrors, signIn, until,
} from './support.mjs';

const RUN = Date.now();
const PASSWORD = 'cardchat-sources-1';
const ANSWER_TIMEOUT = 120_000;
let browser;
/** @type {Record<'reader' | 'stranger' | 'sharerA' | 'sharerB', { uid: string, email: string }>} */
const U = /** @type {any} */ ({});
/** @type {Record<string, string>} card ids by role */
const CARD = {};

async function user(name) {
  const email = `sources-${name}-${RUN}@cardchat.test`;
  const { uid } = await ensureUser(email, PASSWORD);
  return { uid, email };
}

async function card(role, owner, over) {
  const id = CARD[role] ?? `${owner}_e2e-src-${role}-${RUN}`; // in the owner's namespace
  const now = new Date();
  await adminSet(`${COLLECTIONS.cards}/${id}`, {
    title: `Sources ${role}`, body: `The ${role} card: notes about lighthouse lenses and their keepers.`, owner,
    visibility: 'private', viewers: [], tags: [], created: now, updated: now, ...over,
  });
  CARD[role] = id;
}

before(async () => {
  browser = await launch();
  for (const name of /** @type {const} */ (['reader', 'stranger', 'sharerA', 'sharerB'])) U[name] = await user(name);
  await adminSet(`${COLLECTIONS.users}/${U.reader.uid}`, { may_use_ai: true, admin: false });
  await card('own', U.reader.uid, {});
  await card('strangerGit', U.stranger.uid, { visibility: 'public', tags: ['git'] });
  await card('strangerOther', U.stranger.uid, { visibility: 'public', tags: ['sea'] });
  await card('strangerPrivate', U.stranger.uid, {});
  await card('sharedA', U.sharerA.uid, { viewers: [U.reader.uid] });
  await card('sharedB', U.sharerB.uid, { viewers: [U.reader.uid] });
});
after(async () => {
  await browser?.close();
});

async function listedIds(page) {
  return (await page.getByTestId('card').evaluateAll((els) => els.map((e) => e.getAttribute('data-card-id')))).sort();
}

/** Waits until the list holds exactly `ids`. */
async function listShows(page, ids, what) {
  const want = [...ids].sort();
  await page.waitForFunction((w) => {
    const got = [...document.querySelectorAll('[data-testid=card]')].map((e) => e.getAttribute('data-card-id')).sort();
    return got.join(',') === w.join(',');
  }, want, { timeout: 60_000 }).catch(async (e) => {
    throw new Error(`${what}: expected ${want}, the list shows ${await listedIds(page)} (${e.message})`);
  });
}

async function sourceOptions(page) {
  return page.getByTestId('card-source').locator('option').evaluateAll((os) => os.map((o) => o.textContent));
}

/** 1. The first view is the reader's own cards: the stranger's public card exists and is not listed. */
async function firstViewIsMine(page) {
  await page.getByTestId('card-count').filter({ hasText: /^1 card shown/ }).waitFor({ timeout: 60_000 });
  await listShows(page, [CARD.own], 'the first view');
  assert.equal((await adminGet(`${COLLECTIONS.cards}/${CARD.strangerGit}`))?.visibility, 'public');
  await page.getByTestId('scope-mine').filter({ hasText: /^Mine \(1\)$/ }).waitFor({ state: 'attached', timeout: 60_000 });
  const options = await sourceOptions(page);
  assert.ok(options.every((o) => !/Everyone|Public$/.test(o ?? '')), `no "everyone's" choice: ${options}`);
  assert.equal(options.length, 2, `only "Mine" and "Shared with me" before following anyone: ${options}`);
}

/** 2. From the stranger's public card: follow them; their public cards (not the private one) are the source. */
async function followsTheStranger(page) {
  await page.goto(`${APP_URL}/card/${encodeURIComponent(CARD.strangerGit)}`);
  await page.getByTestId('owner-deck').waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('owner-deck').getAttribute('href'), `/?owner=${encodeURIComponent(U.stranger.uid)}`);
  assert.equal(await page.getByTestId('follow-owner').textContent(), `Follow ${U.stranger.uid}’s public cards`);
  await page.getByTestId('follow-owner').click();
  await page.waitForURL(new RegExp(`/\\?owner=${U.stranger.uid}$`), { timeout: 30_000 });
  await listShows(page, [CARD.strangerGit, CARD.strangerOther], 'the stranger\'s public cards');
  await page.getByTestId('card-count').filter({ hasText: /^2 cards shown/ }).waitFor({ timeout: 60_000 });
  const picked = await page.getByTestId('card-source').evaluate((s) => /** @type {HTMLSelectElement} */ (s).selectedOptions[0]?.textContent);
  assert.equal(picked, `${U.stranger.uid}’s public cards`);
  await page.getByTestId('unfollow-source').waitFor({ timeout: 30_000 });
  const stored = await until('the followed source in card_sources', () => adminGet(`${COLLECTIONS.card_sources}/${U.reader.uid}`), 30_000);
  assert.deepEqual(stored.following, [{ owner: U.stranger.uid }]);
}

/** 3. Kept as a source: the stranger's card says so; the Cards page is "Mine" again first, the stranger's cards a choice. */
async function theSourceIsKept(page) {
  await page.goto(`${APP_URL}/card/${encodeURIComponent(CARD.strangerOther)}`);
  await page.getByTestId('follow-owner').filter({ hasText: `You follow ${U.stranger.uid}’s public cards` }).waitFor({ timeout: 30_000 });
  assert.ok(await page.getByTestId('follow-owner').isDisabled());
  await page.goto(`${APP_URL}/`);
  await listShows(page, [CARD.own], 'the first view after following');
  // The followed sources are read once the first page is in.
  await page.locator(`[data-testid=scope-owner][data-owner="${U.stranger.uid}"]`).waitFor({ state: 'attached', timeout: 30_000 });
  const options = await sourceOptions(page);
  assert.ok(options.includes(`${U.stranger.uid}’s public cards`), `the followed source is offered: ${options}`);
  await page.getByTestId('card-source').selectOption({ label: `${U.stranger.uid}’s public cards` });
  await listShows(page, [CARD.strangerGit, CARD.strangerOther], 'the followed source picked');
  assert.equal(new URL(page.url()).search, `?owner=${U.stranger.uid}`);
}

/** 4. "Chat with all 2 cards" sends the source's query, not ids and not everyone's. */
async function chatsOverTheSource(page) {
  await page.getByTestId('chat-with-cards').filter({ hasText: 'Chat with all 2 cards' }).waitFor({ timeout: 30_000 });
  await page.getByTestId('chat-with-cards').click();
  await page.waitForFunction(modelPickerReady, null, { timeout: 30_000 });
  const offline = await page.locator('[data-testid=model-picker] option[data-offline=true]').first().getAttribute('value');
  await page.getByTestId('model-picker').selectOption(offline);
  await page.getByTestId('start-message').fill('What do the notes say about lighthouse lenses?');
  await page.getByTestId('start-submit').click();
  // A refusal shows in the dialog: fail with its words rather than wait for a page that never comes.
  const refused = page.getByTestId('start-error').filter({ hasText: /\S/ }).waitFor({ timeout: ANSWER_TIMEOUT })
    .then(async () => { throw new Error(`createChat refused: ${await page.getByTestId('start-error').textContent()}`); }, () => {});
  await Promise.race([page.waitForURL(/\/chat\/[^/]+$/, { timeout: ANSWER_TIMEOUT }), refused]);
  const chatId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  await page.locator('[data-testid=message][data-role=assistant][data-phase=complete]').first().waitFor({ timeout: ANSWER_TIMEOUT });
  const priv = await adminGet(`${COLLECTIONS.chat_private}/${chatId}`);
  assert.deepEqual(priv.collection_query, { scope: 'owner', owner: U.stranger.uid });
  assert.ok(priv.card_ids.every((/** @type {string} */ id) => [CARD.strangerGit, CARD.strangerOther].includes(id)),
    `only the stranger's public cards: ${priv.card_ids}`);
}

/** 5. The stranger made their cards private: the source is empty, said so, no error. */
async function anEmptySourceIsNoError(page) {
  await card('strangerGit', U.stranger.uid, { tags: ['git'] });
  await card('strangerOther', U.stranger.uid, { tags: ['sea'] });
  await page.goto(`${APP_URL}/?owner=${encodeURIComponent(U.stranger.uid)}`);
  await page.getByTestId('no-cards').filter({ hasText: `${U.stranger.uid} has no public cards now.` }).waitFor({ timeout: 60_000 });
  assert.equal(await page.getByTestId('load-failed').count(), 0);
  assert.ok(await page.getByTestId('chat-with-cards').isDisabled());
}

test('a new user sees their own cards first, follows a stranger from their public card, chats over that source', async () => {
  const context = await newContext(browser);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page, U.reader.email, PASSWORD);
  await firstViewIsMine(page);
  await followsTheStranger(page);
  await theSourceIsKept(page);
  await chatsOverTheSource(page);
  await anEmptySourceIsNoError(page);
  assert.deepEqual(errors, []);
  await context.close();
});

/** A sharer's button of `action` (accept, stop, undo) in the "Shared with me" banner. */
const sharerButton = (page, action, who) => page.locator(`[data-testid=${action}-sharer][data-sharer="${who.uid}"]`);

async function nothingUntilAccepted(page) {
  await page.getByTestId('card-source').selectOption({ index: 1 });
  await page.getByTestId('no-cards').filter({ hasText: 'No cards are shared with you by people you accepted.' }).waitFor({ timeout: 60_000 });
  assert.equal(new URL(page.url()).search, '?scope=shared');
  await page.getByTestId('pending-sharers').locator(`span.sharer[data-sharer="${U.sharerA.uid}"]`).waitFor({ timeout: 30_000 });
  await page.getByTestId('pending-sharers').locator(`span.sharer[data-sharer="${U.sharerB.uid}"]`).waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('sharers').filter({ hasText: '@' }).count(), 0); // no email shown
}

async function acceptsBothThenStopsOne(page) {
  await sharerButton(page, 'accept', U.sharerA).click();
  await listShows(page, [CARD.sharedA], 'shared with me, one sharer accepted');
  await sharerButton(page, 'accept', U.sharerB).click();
  await listShows(page, [CARD.sharedA, CARD.sharedB], 'shared with me, both accepted');
  await sharerButton(page, 'stop', U.sharerA).click();
  await listShows(page, [CARD.sharedB], 'shared with me, one sharer stopped');
  await until('the stopped sharer in card_sources, out of the accepted', async () => {
    const s = await adminGet(`${COLLECTIONS.card_sources}/${U.reader.uid}`);
    return s?.hidden_sharers?.includes(U.sharerA.uid) && !s.accepted_sharers.includes(U.sharerA.uid);
  }, 30_000);
}

async function stoppedStaysStoppedAndCanBeUndone(page) {
  await page.goto(`${APP_URL}/?scope=shared`);
  await listShows(page, [CARD.sharedB], 'shared with me, reloaded');
  await sharerButton(page, 'undo', U.sharerA).click();
  await page.getByTestId('pending-sharers').locator(`span.sharer[data-sharer="${U.sharerA.uid}"]`).waitFor({ timeout: 30_000 });
  await listShows(page, [CARD.sharedB], 'shared with me, the stop undone: pending again, not accepted');
}

test('cards shared with me join only once I accept their sharer; stopping a sharer takes their cards out', async () => {
  const context = await newContext(browser);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page, U.reader.email, PASSWORD);
  await listShows(page, [CARD.own], 'the first view');
  await nothingUntilAccepted(page);
  await acceptsBothThenStopsOne(page);
  await stoppedStaysStoppedAndCanBeUndone(page);
  assert.deepEqual(errors, []);
  await context.close();
});
