// Answers you can check. A citation previews its card (hover,
// keyboard, Escape, the 390 px layout); the details toggle shows the stored
// figures; the owner rates an answer (stored where only they read it); the
// Usage page shows the day's answer from the server's aggregate. Each citation carries the
// server's check: one its card does not say is marked, and its preview says so.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminGet, adminList, adminUpdate, APP_URL, callFunction, COLLECTIONS, DESKTOP, launch, newContext, pageErrors, PHONE, signIn,
  signInRest, until, visibleTo,
} from './support.mjs';

const ANSWER_TIMEOUT = 120_000;
let browser;
let chatId;
let cards;
before(async () => {
  browser = await launch();
  const { uid, idToken } = await signInRest();
  cards = (await adminList(COLLECTIONS.cards))
    .filter((c) => visibleTo(c, uid) && `${c.title}\n${c.body}`.toLowerCase().includes('rebase'))
    .slice(0, 40);
  const offline = (await callFunction('listModels', {}, idToken)).models.find((m) => m.offline).id;
  ({ chat_id: chatId } = await callFunction('createChat', {
    card_ids: cards.map((c) => c.id), initial_message: 'How do I squash my last commits with an interactive rebase?', model: offline,
  }, idToken));
});
after(async () => {
  await browser?.close();
});

async function openAnswer(page) {
  await page.goto(`${APP_URL}/chat/${encodeURIComponent(chatId)}`);
  const answer = page.locator('[data-testid=message][data-role=assistant][data-phase=complete]').first();
  await answer.waitFor({ timeout: ANSWER_TIMEOUT });
  await page.waitForFunction(() => !document.querySelector('[data-testid=message].revealing'), null, { timeout: 30_000 });
  return answer;
}

/** 1. Hover a citation: the cited card's title; Escape closes; focus opens it again. */
async function previewsACitation(page, answer) {
  const cite = answer.locator('a.cite').first();
  await cite.waitFor({ timeout: 30_000 });
  const card = await adminGet(`${COLLECTIONS.cards}/${await cite.getAttribute('data-card-id')}`);
  await cite.hover();
  const preview = page.getByTestId('cite-preview');
  await page.getByTestId('cite-preview-title').waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('cite-preview-title').textContent(), card.title);
  assert.ok(await preview.locator('mark').count() === 1, 'the best-matching passage is highlighted');
  await page.keyboard.press('Escape');
  await preview.waitFor({ state: 'hidden' });
  await cite.focus();
  await preview.waitFor({ state: 'visible' });
  assert.equal(await cite.getAttribute('aria-describedby'), 'cite-preview');
  await page.keyboard.press('Escape');
  await preview.waitFor({ state: 'hidden' });
  return cite;
}

/** ... and in the 390 px layout the preview stays on the screen. */
async function previewFitsAPhone(page, cite) {
  const preview = page.getByTestId('cite-preview');
  await page.setViewportSize(PHONE);
  await cite.scrollIntoViewIfNeeded();
  await cite.blur();
  await cite.focus();
  await page.getByTestId('cite-preview-title').waitFor({ timeout: 30_000 });
  const box = await preview.boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width && box.y >= 0 && box.y + box.height <= PHONE.height,
    JSON.stringify(box));
  await page.keyboard.press('Escape');
  await preview.waitFor({ state: 'hidden' });
  await page.setViewportSize(DESKTOP);
}

/** 2. The details toggle: the message's output tokens, and the owner's answer_usage (input tokens, cost). */
async function showsTheDetails(answer, stored, owned) {
  assert.deepEqual(Object.keys(stored.usage), ['output_tokens']); // what a visitor reads of the message
  await answer.getByTestId('details-toggle').click();
  await answer.getByTestId('answer-details').waitFor();
  assert.match((await answer.getByTestId('detail-model').textContent()) ?? '', /offline/i);
  await answer.getByTestId('detail-cost').waitFor({ timeout: 30_000 }); // once the owner's answer_usage is read
  assert.equal(await answer.getByTestId('detail-cost').textContent(), '$0');
  const tokens = (await answer.getByTestId('detail-tokens').textContent()) ?? '';
  assert.ok(tokens.startsWith(`${owned.usage.input_tokens.toLocaleString('en-US')} in`), tokens);
  assert.ok(tokens.endsWith(`${stored.usage.output_tokens.toLocaleString('en-US')} out`), tokens);
  assert.match((await answer.getByTestId('detail-ttft').textContent()) ?? '', /^\d+\.\d+ s$/);
  assert.match((await answer.getByTestId('detail-total').textContent()) ?? '', /^\d+\.\d+ s$/);
}

/** 3. Rate it down with a comment: stored in answer_feedback, not on the message. */
async function ratesItDown(page, answer, messageId) {
  await answer.getByTestId('rate-down').click();
  await answer.getByTestId('rate-comment').click();
  await answer.getByTestId('rate-comment-text').fill('Missed the autosquash option.');
  await answer.getByTestId('rate-comment-save').click();
  const fb = await until('the rating\'s comment to reach Firestore', async () => {
    const got = await adminGet(`${COLLECTIONS.answer_feedback}/${messageId}`);
    return got?.comment === 'Missed the autosquash option.' ? got : null;
  }, 60_000, 250);
  assert.equal(fb?.rating, 'down');
  assert.equal(fb?.comment, 'Missed the autosquash option.');
  assert.equal((await adminGet(`${COLLECTIONS.chat_messages}/${messageId}`)).rating, undefined);
  await page.waitForFunction((id) => document.querySelector(`[data-message-id="${id}"] [data-testid=rate-down]`)
    ?.getAttribute('aria-pressed') === 'true', messageId);
}

/** 4. The Usage page: today's answers from usage_daily. */
async function opensUsage(page) {
  await page.getByTestId('nav-usage').click();
  await page.getByTestId('usage-page').waitFor({ timeout: 30_000 });
  assert.match((await page.getByTestId('usage-total-answers').textContent()) ?? '', /^[1-9]\d* answers$/);
  await page.getByTestId('usage-chart').waitFor();
  assert.ok(await page.getByTestId('usage-row').count() >= 1);
}

test('checkable answers: citation preview, details, rating, usage page', async () => {
  const context = await newContext(browser, DESKTOP);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page);
  const answer = await openAnswer(page);
  const messageId = await answer.getAttribute('data-message-id');
  const stored = await adminGet(`${COLLECTIONS.chat_messages}/${messageId}`);
  const cite = await previewsACitation(page, answer);
  await previewFitsAPhone(page, cite);
  await showsTheDetails(answer, stored, await adminGet(`${COLLECTIONS.answer_usage}/${messageId}`));
  await ratesItDown(page, answer, messageId);
  await opensUsage(page);
  assert.deepEqual(errors, []);
  await context.close();
});

/** The marks on an answer's citations: as many as the stored checks that are not `supported`. */
async function marksAsStored(answer, checks) {
  const flagged = { weak: 0, unsupported: 0 };
  for (const c of checks) if (c.verdict !== 'supported') flagged[c.verdict] += 1;
  assert.equal(await answer.locator('a.cite.cite-weak').count(), flagged.weak);
  assert.equal(await answer.locator('a.cite.cite-unsupported').count(), flagged.unsupported);
}

test('citation checks: each citation carries the server\'s verdict; one its card does not say is marked, and its preview says so', async () => {
  const context = await newContext(browser, DESKTOP);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page);
  let answer = await openAnswer(page);
  const messageId = await answer.getAttribute('data-message-id');
  const path = `${COLLECTIONS.chat_messages}/${messageId}`;
  const checks = (await adminGet(path)).citation_checks;
  assert.ok(Array.isArray(checks) && checks.length > 0, 'the server checked the answer\'s citations');
  await marksAsStored(answer, checks);
  // The same answer as if the card of its first checked citation did not say that claim.
  const first = checks.findIndex((c) => c.verdict === 'supported');
  assert.ok(first >= 0, 'the offline answer quotes its cards: some citation is supported');
  const changed = checks.map((c, i) => (i === first ? { ...c, verdict: 'unsupported' } : c));
  await adminUpdate(path, { citation_checks: changed });
  answer = await openAnswer(page);
  await marksAsStored(answer, changed);
  const marked = answer.locator('a.cite.cite-unsupported').first();
  await marked.hover();
  await page.getByTestId('cite-preview-title').waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('cite-preview-unsaid').textContent(), 'No passage of this card says this.');
  await page.keyboard.press('Escape');
  // A supported citation's preview shows its passage, never that line.
  const plain = answer.locator('a.cite:not(.cite-weak):not(.cite-unsupported)').first();
  if (await plain.count()) {
    await plain.hover();
    await page.getByTestId('cite-preview-title').waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('cite-preview-unsaid').count(), 0);
  }
  await adminUpdate(path, { citation_checks: checks });
  assert.deepEqual(errors, []);
  await context.close();
});
