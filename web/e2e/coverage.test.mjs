// The coverage notice: asked what no card of the chat covers, the offline
// answerer says so and names the nearest cards by number. The owner sees the
// notice with its actions ("Ask anyway" posts the question again, marked;
// "Widen the collection" opens the Cards page with the question kept for the
// start-chat dialog) and the nearest cards' titles; a visitor of the
// published chat sees the notice, no action, and no private card's title.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import {
  adminGet, adminList, APP_URL, COLLECTIONS, DESKTOP, launch, newContext, pageErrors, signIn, until,
} from './support.mjs';
import { ANSWER_TIMEOUT, completeMessage, demoChatOnCommits, publishFromPage } from './chatsetup.mjs';

const RULE = JSON.parse(readFileSync(new URL('../../common/claims.json', import.meta.url), 'utf8')).coverage;
const QUESTION = 'What is the melting point of tungsten?';
let browser;
let chatId;
/** @type {any[]} the chat's cards: the demo user's private ones on commits */
let chosen;

before(async () => {
  browser = await launch();
  ({ chatId, chosen } = await demoChatOnCommits((own) => own.filter((c) => c.visibility !== 'public').slice(0, 6), QUESTION));
});
after(async () => {
  await browser?.close();
});

async function storedAnswers() {
  return (await adminList(COLLECTIONS.chat_messages)).filter((x) => x.chat === chatId).sort((a, b) => a.message_index - b.message_index);
}

/** The first answer, complete, declined: `coverage` none, the nearest cards by number only. */
async function declinedAnswer() {
  const msg = await completeMessage(chatId);
  assert.equal(msg.coverage, 'none', msg.content);
  assert.ok(msg.content.startsWith(RULE.declined) && msg.sources.length > 0, msg.content);
  for (const c of chosen) assert.ok(!msg.content.includes(c.title), 'a card title is in the answer text');
  return msg;
}

const NOTICE = '[data-testid=message][data-role=assistant][data-phase=complete] [data-testid=coverage-notice]';

/** 1. The owner: the notice with its three actions; the nearest cards listed by title. */
async function ownerSeesTheNotice(page, msg) {
  await page.goto(`${APP_URL}/chat/${encodeURIComponent(chatId)}`);
  const notice = page.locator(NOTICE).first();
  await notice.waitFor({ timeout: ANSWER_TIMEOUT });
  assert.equal(await notice.getAttribute('data-coverage'), 'none');
  assert.match(await notice.getByTestId('coverage-text').innerText(), /don’t seem to cover/);
  assert.deepEqual(await notice.locator('button').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-testid'))),
    ['coverage-widen', 'coverage-raise', 'coverage-anyway']);
  const list = page.locator('[data-testid=answer-sources]').first();
  assert.match(await list.getByTestId('answer-sources-open').innerText(), /^Nearest cards/);
  await list.getByTestId('answer-sources-open').click();
  const priv = await adminGet(`${COLLECTIONS.chat_private}/${chatId}`);
  const first = chosen.find((c) => c.id === priv.card_ids[msg.sources[0] - 1]);
  await list.getByTestId('answer-source-link').filter({ hasText: first.title }).first().waitFor({ timeout: 30_000 });
}

/** 2. "Ask anyway" posts the question again, marked; its answer completes. */
async function ownerAsksAnyway(page) {
  await page.locator(NOTICE).first().getByTestId('coverage-anyway').click();
  const again = await until('the marked question and its answer', async () => {
    const all = await storedAnswers();
    return all.length >= 4 && all[3].status === 'complete' ? all : null;
  }, ANSWER_TIMEOUT, 500);
  assert.equal(again[2].content, `${RULE.anyway} ${QUESTION}`);
  assert.ok(RULE.values.includes(again[3].coverage));
}

/** 3. "Widen the collection": the Cards page, and the start-chat dialog holds the question. */
async function ownerWidens(page) {
  await page.locator(NOTICE).first().getByTestId('coverage-widen').click();
  await page.waitForURL(`${APP_URL}/`);
  const start = page.getByTestId('chat-with-cards');
  await until('the chat button to be ready', async () => !(await start.isDisabled()), 60_000, 200);
  await start.click();
  assert.equal(await page.getByTestId('start-message').inputValue(), QUESTION);
  await page.getByTestId('start-cancel').click();
}

/** 4. Published: a visitor sees the notice, no action, and no private card's title. */
async function visitorSeesTheNoticeOnly(page) {
  await page.goto(`${APP_URL}/chat/${encodeURIComponent(chatId)}`);
  await publishFromPage(page, chatId);
  const context = await newContext(browser, DESKTOP);
  const visitor = await context.newPage();
  const errors = pageErrors(visitor);
  await visitor.goto(`${APP_URL}/chat/${encodeURIComponent(chatId)}`);
  const notice = visitor.locator(NOTICE).first();
  await notice.waitFor({ timeout: ANSWER_TIMEOUT });
  assert.match(await notice.innerText(), /don’t seem to cover/);
  assert.equal(await notice.locator('button').count(), 0);
  const list = visitor.locator('[data-testid=answer-sources]').first();
  await list.getByTestId('answer-sources-open').click();
  await list.getByTestId('answer-source-denied').first().waitFor({ timeout: 30_000 });
  const html = await visitor.locator('[data-testid=message][data-role=assistant]').first().innerHTML();
  for (const c of chosen) assert.ok(!html.includes(c.id) && !html.includes(c.title), 'a private card is named to a visitor');
  assert.deepEqual(errors, []);
  await context.close();
}

test('coverage notice: the owner\'s actions and nearest cards, a visitor\'s notice alone', async () => {
  const msg = await declinedAnswer();
  const context = await newContext(browser, DESKTOP);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page);
  await ownerSeesTheNotice(page, msg);
  await ownerAsksAnyway(page);
  await visitorSeesTheNoticeOnly(page);
  await ownerWidens(page);
  assert.deepEqual(errors, []);
  await context.close();
});
