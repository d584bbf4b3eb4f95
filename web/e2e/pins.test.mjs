// Pin and exclude: the owner excludes a card from the sources under an answer and pins another;
// the next answer's hidden background holds the pinned card and not the excluded one, which that
// answer no longer cites; the "why" panel lists both, and undoes the exclusion. A visitor of the
// published chat gets no such control.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminGet, adminList, APP_URL, callFunction, COLLECTIONS, DESKTOP, launch, newContext, pageErrors, signIn, signInRest,
  until,
} from './support.mjs';

const ANSWER_TIMEOUT = 120_000;
const QUESTION = 'How do I undo or amend my last commit?';
let browser;
let chatId;

before(async () => {
  browser = await launch();
  const { uid, idToken } = await signInRest();
  const own = (await adminList(COLLECTIONS.cards)).filter((c) => c.owner === uid && /commit/i.test(`${c.title}\n${c.body}`));
  const offline = (await callFunction('listModels', {}, idToken)).models.find((m) => m.offline).id;
  ({ chat_id: chatId } = await callFunction('createChat', {
    card_ids: own.slice(0, 12).map((c) => c.id), initial_message: QUESTION, model: offline,
  }, idToken));
});
after(async () => {
  await browser?.close();
});

/** The chat's answers as stored, complete ones only, in order. */
async function answers() {
  return (await adminList(COLLECTIONS.chat_messages))
    .filter((m) => m.chat === chatId && m.role === 'assistant' && m.status === 'complete')
    .sort((a, b) => a.message_index - b.message_index);
}

/** The card numbers in the chat's hidden background (read as the server does: no client can). */
async function backgroundNumbers() {
  const parts = await adminList(`${COLLECTIONS.chat_backgrounds}/${chatId}/${COLLECTIONS.chat_background_parts}`);
  const text = parts.sort((a, b) => a.id.localeCompare(b.id)).map((p) => p.text).join('');
  return [...text.matchAll(/<card n="(\d+)"/g)].map((m) => Number(m[1]));
}

/** 1. From the sources of the first answer: exclude its first source, pin its second. */
async function excludeAndPinFromTheSources(page) {
  await page.goto(`${APP_URL}/chat/${encodeURIComponent(chatId)}`);
  const list = page.locator('[data-testid=message][data-role=assistant][data-phase=complete] [data-testid=answer-sources]').first();
  await list.getByTestId('answer-sources-open').click();
  const sources = list.getByTestId('answer-source');
  await until('two sources with their controls', async () => (await list.getByTestId('pin-controls').count()) >= 2, 30_000, 200);
  const [excluded, pinned] = [sources.nth(0), sources.nth(1)];
  const ns = { excluded: Number(await excluded.getAttribute('data-n')), pinned: Number(await pinned.getAttribute('data-n')) };
  await excluded.getByTestId('exclude-card').click();
  await excluded.locator('[data-testid=pin-controls][data-excluded=true]').waitFor({ timeout: 30_000 });
  await pinned.getByTestId('pin-card').click();
  await pinned.locator('[data-testid=pin-controls][data-pinned=true]').waitFor({ timeout: 30_000 });
  assert.equal(await pinned.getByTestId('pin-card').textContent(), 'Unpin');
  const priv = await adminGet(`${COLLECTIONS.chat_private}/${chatId}`);
  assert.deepEqual([priv.excluded_cards, priv.pinned_cards], [[priv.card_ids[ns.excluded - 1]], [priv.card_ids[ns.pinned - 1]]]);
  return ns;
}

/** 2. The next answer: its background holds the pin, not the excluded card, which it no longer cites. */
async function theNextAnswerFollows(page, { excluded, pinned }) {
  await page.getByTestId('composer-input').fill(QUESTION);
  await page.getByTestId('send').click();
  const second = await until('the second answer', async () => (await answers())[1], ANSWER_TIMEOUT, 500);
  const numbers = await backgroundNumbers();
  assert.ok(numbers.includes(pinned) && !numbers.includes(excluded), `background ${numbers}`);
  assert.ok(!second.sources.includes(excluded), `the answer cites the excluded [${excluded}]: ${second.content}`);
}

/** 3. The why panel lists both; its "Include again" undoes the exclusion. */
async function theWhyPanelUndoes(page, { excluded }) {
  const why = page.getByTestId('context-why');
  await why.locator('summary').click();
  await why.getByTestId('context-pinned').waitFor({ timeout: 30_000 });
  const row = why.getByTestId('context-excluded');
  assert.match(await row.textContent() ?? '', new RegExp(`\\[${excluded}\\]`));
  await row.getByTestId('exclude-card').click();
  await until('the exclusion undone', async () => !(await adminGet(`${COLLECTIONS.chat_private}/${chatId}`)).excluded_cards.length,
    30_000, 200);
  await why.getByTestId('context-excluded').waitFor({ state: 'detached', timeout: 30_000 });
  assert.ok(await why.evaluate((d) => /** @type {HTMLDetailsElement} */ (d).open), 'the panel stays open');
}

/** 4. A visitor of the published chat: sources, but no control. */
async function aVisitorHasNoControls(page) {
  await page.getByTestId('publish-toggle').check();
  await until('the published flag', async () => (await adminGet(`${COLLECTIONS.chats}/${chatId}`)).published === true, 60_000, 200);
  const context = await newContext(browser, DESKTOP);
  const visitor = await context.newPage();
  await visitor.goto(`${APP_URL}/chat/${encodeURIComponent(chatId)}`);
  const list = visitor.locator('[data-testid=message][data-role=assistant][data-phase=complete] [data-testid=answer-sources]').first();
  await list.getByTestId('answer-sources-open').click();
  await list.getByTestId('answer-source').first().waitFor({ timeout: 30_000 });
  await visitor.waitForFunction(() => ![...document.querySelectorAll('[data-testid=answer-source]')]
    .some((li) => li.textContent?.includes('Loading')), null, { timeout: 30_000 });
  assert.equal(await visitor.locator('[data-testid=pin-controls]').count(), 0);
  await context.close();
}

test('pin and exclude from the sources and the why panel, owner only', async () => {
  await until('the first answer', async () => (await answers())[0], ANSWER_TIMEOUT, 500);
  const context = await newContext(browser, DESKTOP);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page);
  const ns = await excludeAndPinFromTheSources(page);
  await theNextAnswerFollows(page, ns);
  await theWhyPanelUndoes(page, ns);
  await aVisitorHasNoControls(page);
  assert.deepEqual(errors, []);
  await context.close();
});
