// Whose cards a user sees, in the browser: the signed-in demo user's Cards page opens on
// exactly their own cards (others' only by a choice: cardsources.test.mjs), live
// from Firestore, and the model picker offers what listModels returns.
// A page at a time, in a virtualised list.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminDelete, adminGet, adminList, adminSet, callFunction, COLLECTIONS, launch, modelPickerReady, newContext, pageErrors, signIn,
  signInRest, visibleTo,
} from './support.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('the demo user\'s own cards appear, another user\'s (shared with them or not) do not, and the model picker lists the models', async () => {
  const { uid, idToken } = await signInRest();
  const all = await adminList(COLLECTIONS.cards);
  const visible = all.filter((c) => c.owner === uid);
  const hidden = all.filter((c) => c.owner !== uid);
  assert.ok(visible.length >= 200, `the seed should give the demo user ≥ 200 cards, found ${visible.length}`);
  assert.ok(hidden.some((c) => !visibleTo(c, uid)), 'the seed should hold a card private to other-user');
  assert.ok(hidden.some((c) => visibleTo(c, uid)), 'the seed should hold a card other-user shares with the demo user');

  const context = await newContext(browser);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page);

  await exactlyTheReadableCardsAreShown(page, visible, hidden);
  await aCardWrittenNowComesAndGoesLive(page, uid, visible);
  await filteringNarrowsTheCount(page, visible, idToken);
  await thePickerOffersListModels(page, idToken);
  assert.deepEqual(errors, []);
  await context.close();
});

// The steps of the test above, in order.

/** Firestore's order of the cards page: title, then id, by code point. */
function byTitleThenId(a, b) {
  const cmp = (x, y) => {
    const [p, q] = [Array.from(x), Array.from(y)];
    for (let i = 0; i < Math.min(p.length, q.length); i++) {
      const d = p[i].codePointAt(0) - q[i].codePointAt(0);
      if (d) return d;
    }
    return p.length - q.length;
  };
  return cmp(a.title, b.title) || cmp(a.id, b.id);
}

async function exactlyTheReadableCardsAreShown(page, visible, hidden) {
  await page.waitForFunction(() => /^\d+ cards? shown/.test(document.querySelector('[data-testid=card-count]')?.textContent ?? ''), null, { timeout: 60_000 });
  await page.getByTestId('card').first().waitFor({ timeout: 60_000 }); // the count comes apart from the cards
  assert.match(await page.getByTestId('card-count').textContent(), new RegExp(`^${visible.length} cards shown`));
  const firstScreen = await page.getByTestId('card').evaluateAll((els) => els.map((e) => e.getAttribute('data-card-id')));
  const inOrder = [...visible].sort(byTitleThenId).map((c) => c.id);
  assert.deepEqual(firstScreen, inOrder.slice(0, firstScreen.length), 'the first screen is the first cards in title order');
  assert.ok(firstScreen.length < 40, `only what is on screen is rendered (${firstScreen.length} cards)`);
  for (const c of hidden) assert.ok(!firstScreen.includes(c.id), `card ${c.id} of another user must not appear unasked`);
  // Still to do: scroll to the end and compare every id (a first attempt collected none).
}

/** Live: a card written now appears without a reload, and goes when deleted. */
async function aCardWrittenNowComesAndGoesLive(page, uid, visible) {
  const liveId = `e2e-live-${Date.now()}`;
  const now = new Date();
  // Titled to sort first: the list is virtualised, so only a card in the first screen's place is in the DOM.
  await adminSet(`${COLLECTIONS.cards}/${liveId}`, {
    title: '!E2E live card', body: 'Written while the page was open.', owner: uid, visibility: 'private',
    viewers: [], tags: ['e2e'], created: now, updated: now,
  });
  try {
    await page.locator(`[data-testid=card][data-card-id="${liveId}"]`).waitFor({ timeout: 60_000 });
    // The count is the server's (an aggregation query asked again after a change): it follows the list.
    await page.waitForFunction((n) => document.querySelector('[data-testid=card-count]')?.textContent?.startsWith(`${n} cards shown`), visible.length + 1, { timeout: 30_000 });
  } finally {
    await adminDelete(`${COLLECTIONS.cards}/${liveId}`);
  }
  assert.equal(await adminGet(`${COLLECTIONS.cards}/${liveId}`), null, 'the live card was deleted');
  await page.locator(`[data-testid=card][data-card-id="${liveId}"]`).waitFor({ state: 'detached', timeout: 60_000 });
}

/** The text filter is the server's search: the count is the cards holding the word, the list its best ones. */
async function filteringNarrowsTheCount(page, visible, idToken) {
  await page.getByTestId('card-search').fill('rebase');
  const truth = await callFunction('searchCards', { text: 'rebase', scope: 'mine', limit: 50 }, idToken);
  await page.waitForFunction((n) => document.querySelector('[data-testid=card-count]')?.textContent?.startsWith(`${n} card`), truth.matching, { timeout: 30_000 });
  assert.ok(truth.matching > 0 && truth.matching < visible.length);
  const shownIds = await page.getByTestId('card').evaluateAll((els) => els.map((e) => e.getAttribute('data-card-id')));
  // The list is virtualised: the first screen holds the best few of the answer. (Which ones may differ
  // between two searches while the demo deck is still being embedded; the matching count may not.)
  assert.ok(shownIds.length >= 1 && shownIds.length <= truth.cards.length, `the list is the search answer (${shownIds.length})`);
  assert.ok(shownIds.every((id) => visible.some((c) => c.id === id)), 'a search shows only the reader\'s own cards');
}

/** The model picker shows exactly listModels' answer, the offline default labelled as such. */
async function thePickerOffersListModels(page, idToken) {
  const truth = await callFunction('listModels', {}, idToken);
  await page.getByTestId('chat-with-cards').click();
  const dialog = page.getByTestId('start-chat-dialog');
  await dialog.waitFor();
  await page.waitForFunction(modelPickerReady, null, { timeout: 30_000 });
  const options = await page.getByTestId('model-picker').locator('option').evaluateAll((els) =>
    els.map((o) => ({ value: o.value, text: o.textContent, offline: o.dataset.offline === 'true' })));
  assert.deepEqual(options.map((o) => o.value), truth.models.map((m) => m.id));
  assert.equal(await page.getByTestId('model-picker').inputValue(), truth.default);
  const offline = options.filter((o) => o.offline);
  assert.ok(offline.length >= 1, 'the offline answerer is always offered');
  for (const o of offline) assert.match(o.text, /offline/i);
  assert.match(await page.getByTestId('budget').textContent(), /tokens/);
}
