// The chat story: pick cards, start a chat with the offline answerer, watch the
// answer stream in, follow up, publish, read it signed out, prove the hidden
// background never reached a browser, delete.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminGet, adminList, APP_URL, callFunction, captureResponses, COLLECTIONS, DESKTOP, forceLongPolling, launch, modelPickerReady, newContext,
  pageErrors, PHONE,
  screenshot, signIn, signInRest, until,
} from './support.mjs';

const ANSWER_TIMEOUT = 120_000;
let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Records every distinct text state of the n-th assistant message, frame by frame. */
async function recordAnswer(page, n) {
  await page.evaluate((nth) => {
    const w = window;
    w.__answerStates = [];
    const tick = () => {
      const el = /** @type {HTMLElement | undefined} */ (document.querySelectorAll('[data-testid=message][data-role=assistant]')[nth]);
      const text = el?.querySelector('[data-testid=message-body]')?.textContent ?? '';
      const states = w.__answerStates;
      const done = el?.dataset.phase === 'complete' && !el.classList.contains('revealing');
      if (text && states.at(-1)?.text !== text) states.push({ text, done });
      if (!done) requestAnimationFrame(tick);
      else states.push({ text, done: true });
    };
    requestAnimationFrame(tick);
  }, n);
}

async function answerStates(page, n) {
  await page.locator('[data-testid=message][data-role=assistant]').nth(n)
    .and(page.locator('[data-phase=complete]')).waitFor({ timeout: ANSWER_TIMEOUT });
  await page.waitForFunction(() => window.__answerStates?.at(-1)?.done === true, null, { timeout: 30_000 });
  return page.evaluate(() => window.__answerStates);
}

function assertGrew(states, label) {
  const final = states.at(-1).text;
  const partial = [...new Set(states.filter((s) => !s.done && s.text.length < final.length).map((s) => s.text))];
  assert.ok(partial.length >= 3, `${label}: saw ${partial.length} partial states before completion`);
  // Growth, not a flicker: each recorded length is at least the one before (Markdown may re-flow a little).
  const lengths = states.map((s) => s.text.length);
  const shrinks = lengths.filter((l, i) => i > 0 && l < lengths[i - 1] - 5).length;
  assert.equal(shrinks, 0, `${label}: the revealed text shrank (${lengths.join(',')})`);
}

/** Sentences of the cards in the background that the transcript does not contain. */
function unquotedSentences(cards, background, transcript) {
  const norm = (s) => s.replace(/\s+/g, ' ');
  const bg = norm(background);
  const tr = norm(transcript);
  const out = [];
  for (const c of cards) {
    for (const raw of c.body.split(/(?<=[.!?])\s+|\n+/)) {
      const s = norm(raw).trim();
      // Plain prose only, so no Markdown rendering or JSON escaping can hide a match.
      if (s.length < 50 || s.length > 220 || !/^[A-Za-z][A-Za-z0-9 ,;:'()-]+[.!?]$/.test(s)) continue;
      if (bg.includes(s) && !tr.includes(s) && !tr.includes(s.slice(0, 40))) out.push(s);
    }
  }
  return out;
}

function bodiesContaining(captured, needle) {
  return captured.bodies.filter((b) => b.text.includes(needle)).map((b) => b.url);
}

test('chat: create, stream, follow up, publish, read signed out, background stays hidden, delete', async () => {
  const { uid, idToken } = await signInRest();
  const owner = await newContext(browser, DESKTOP);
  const page = await owner.newPage();
  const errors = pageErrors(page);
  const ownerCapture = captureResponses(page);
  await signIn(page);
  const s = { uid, idToken, owner, page, ownerCapture };

  await pickCardsAndStart(s);
  await firstAnswerGrows(s);
  await followUp(s);
  await publish(s);
  await visitorReadsTheTranscriptOnly(s);
  await backgroundNeverReachesABrowser(s);
  await editingAFollowUpBranches(s);
  await deleteWithConfirmation(s);
  assert.deepEqual(errors, []);
  await owner.close();
});

// The steps of the test above, in order; `s` carries what one step leaves for the next.

/** 1. Pick the cards about rebasing: the whole filtered collection, sent as a query the server resolves. */
async function pickCardsAndStart(s) {
  const { page, idToken } = s;
  const filtered = (await callFunction('searchCards', { text: 'rebase', scope: 'mine' }, idToken)).matching;
  assert.ok(filtered > 0, 'the demo deck has cards about rebasing');
  await page.waitForFunction(() => /^\d+ cards? shown/.test(document.querySelector('[data-testid=card-count]')?.textContent ?? ''),
    null, { timeout: 60_000 });
  await page.getByTestId('card-search').fill('rebase');
  await page.waitForFunction((n) => document.querySelector('[data-testid=card-count]')?.textContent?.startsWith(`${n} card`),
    filtered, { timeout: 30_000 }).catch(async (e) => {
    throw new Error(`expected ${filtered} cards about rebasing, the page says "${await page.getByTestId('card-count').textContent()}" (${e.message})`);
  });
  await page.getByTestId('chat-with-cards').click();
  await page.getByTestId('start-chat-dialog').waitFor();
  await page.waitForFunction(modelPickerReady, null, { timeout: 30_000 });
  const offline = await page.locator('[data-testid=model-picker] option[data-offline=true]').first().getAttribute('value');
  await page.getByTestId('model-picker').selectOption(offline);
  await page.getByTestId('start-message').fill('How do I squash my last commits with an interactive rebase?');

  // The view must go cards → chat and never show the cards again in between.
  await page.evaluate(() => {
    const w = window;
    w.__routes = [document.body.dataset.route];
    new MutationObserver(() => {
      if (w.__routes.at(-1) !== document.body.dataset.route) w.__routes.push(document.body.dataset.route);
    }).observe(document.body, { attributes: true, attributeFilter: ['data-route'] });
  });
  await page.getByTestId('start-submit').click();
  await page.getByTestId('start-preparing').waitFor({ state: 'visible', timeout: 5_000 }).catch(() => {});
  await page.waitForURL(/\/chat\/[^/]+$/, { timeout: ANSWER_TIMEOUT });
  const chatId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  await recordAnswer(page, 0);
  assert.deepEqual(await page.evaluate(() => window.__routes), ['cards', 'chat']);
  s.filtered = filtered;
  s.chatId = chatId;
}

/** 2. The answer grows in visibly, then completes. */
async function firstAnswerGrows(s) {
  const { page, chatId, uid, filtered } = s;
  await page.getByTestId('chat-title').waitFor({ timeout: 30_000 });
  const first = await answerStates(page, 0);
  assertGrew(first, 'first answer');
  const chat = await adminGet(`${COLLECTIONS.chats}/${chatId}`);
  const priv = await adminGet(`${COLLECTIONS.chat_private}/${chatId}`);
  assert.equal(chat.owner, uid);
  assert.equal(chat.card_ids, undefined, 'the chat a visitor reads names no card');
  assert.equal(priv.card_count_requested, filtered);
  assert.deepEqual(priv.collection_query, { scope: 'mine', text: 'rebase' }, 'made from the query, not from ids: the reader\'s own cards');
  const counts = await page.getByTestId('chat-counts').textContent();
  assert.match(counts, new RegExp(`^${priv.card_ids.length} cards? in the background of ${filtered} requested`));
  // The demo deck is seeded with its vectors (cached at setup): a first chat ranks by meaning too.
  assert.doesNotMatch(counts, /not embedded yet/);
  assert.equal(priv.cards_unranked ?? 0, 0, 'every card of the demo deck has its vector once seeded');
  assert.equal(await page.getByTestId('chat-description').textContent(), priv.collection.description);
  const bgHref = await page.getByTestId('background-cards-link').getAttribute('href');
  assert.ok(bgHref === `/?cards=${priv.card_ids.map(encodeURIComponent).join(',')}` || bgHref === `/?chat=${chatId}`, bgHref);
  // Citations, if any, point at the ranked cards.
  for (const href of await page.locator('a.cite').evaluateAll((as) => as.map((a) => a.getAttribute('href')))) {
    assert.ok(priv.card_ids.some((id) => href === `/card/${encodeURIComponent(id)}`), href);
  }
  s.chat = chat;
  s.priv = priv;
}

/** 3. Follow-up: Enter sends; the composer waits while the answer is generated. */
async function followUp(s) {
  const { page } = s;
  const input = page.getByTestId('composer-input');
  await page.waitForFunction(() => !(/** @type {HTMLTextAreaElement | null} */ (document.querySelector('[data-testid=composer-input]')))?.disabled);
  await input.fill('And how do I abort a rebase that went wrong?');
  await input.press('Enter');
  await page.locator('[data-testid=message]').nth(3).waitFor({ timeout: 30_000 });
  await recordAnswer(page, 1);
  const second = await answerStates(page, 1);
  assert.ok(second.at(-1).text.length > 0);
  assert.equal(await page.getByTestId('message').count(), 4);
  assert.deepEqual(await page.getByTestId('message').evaluateAll((els) => els.map((e) => e.dataset.role)),
    ['user', 'assistant', 'user', 'assistant']);
}

/** 4. Publish and take the link; the chat view fits a phone. */
async function publish(s) {
  const { page, chatId } = s;
  await page.getByTestId('publish-toggle').check();
  await page.getByTestId('published-chip').waitFor({ timeout: 30_000 });
  const link = await page.getByTestId('share-link').inputValue();
  assert.equal(link, `${APP_URL}/chat/${encodeURIComponent(chatId)}`);
  // The chip shows the local write at once; the server has it a moment later.
  await until('the published flag to reach Firestore',
    async () => (await adminGet(`${COLLECTIONS.chats}/${chatId}`)).published === true, 60_000, 200);

  await screenshot(page, 'chat-desktop.png');
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(200);
  await screenshot(page, 'chat-phone.png');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the chat view scrolls sideways on a phone by ${overflow}px`);
  await page.setViewportSize(DESKTOP);
  s.link = link;
}

/** 5. A signed-out visitor opens the link: transcript, no composer, nothing of the owner's. */
async function visitorReadsTheTranscriptOnly(s) {
  const { link, chatId } = s;
  // read again: the follow-up's own retrieval has added cards (and citation numbers) since
  const priv = await adminGet(`${COLLECTIONS.chat_private}/${chatId}`);
  const visitorContext = await newContext(browser, PHONE, { longPolling: true });
  const visitor = await visitorContext.newPage();
  const visitorErrors = pageErrors(visitor);
  const visitorCapture = captureResponses(visitor);
  await visitor.goto(link);
  await visitor.locator('[data-testid=message][data-role=assistant][data-phase=complete]').nth(1).waitFor({ timeout: 30_000 });
  assert.equal(await visitor.getByTestId('message').count(), 4);
  assert.equal(await visitor.getByTestId('composer').count(), 0);
  assert.equal(await visitor.getByTestId('publish-toggle').count(), 0);
  assert.equal(await visitor.getByTestId('edit-message').count(), 0);
  assert.equal(await visitor.getByTestId('signin-form').count(), 0);
  assert.equal(await visitor.getByTestId('user-email').count(), 0);
  // Nothing of the owner's: no collection, no card count or list, and citations link public cards only.
  for (const id of ['chat-description', 'chat-counts', 'background-cards-link', 'branched-from']) {
    assert.equal(await visitor.getByTestId(id).count(), 0, `a visitor sees ${id}`);
  }
  const ranked = await Promise.all(priv.card_ids.map((id) => adminGet(`${COLLECTIONS.cards}/${id}`)));
  const publicIds = priv.card_ids.filter((id, i) => ranked[i]?.visibility === 'public');
  const privateIds = priv.card_ids.filter((id) => !publicIds.includes(id));
  assert.ok(privateIds.length > 0, 'the background holds private cards');
  for (const href of await visitor.locator('a.cite').evaluateAll((as) => as.map((a) => a.getAttribute('href')))) {
    assert.ok(publicIds.some((id) => href === `/card/${encodeURIComponent(id)}`), `a visitor's citation links ${href}`);
  }
  await screenshot(visitor, 'chat-published-phone.png');
  Object.assign(s, { visitorContext, visitor, visitorErrors, visitorCapture, ranked, publicIds, privateIds });
}

/** 6. The background: what the server packed (admin read), versus what any browser received. */
async function backgroundNeverReachesABrowser(s) {
  const { chatId, chat, priv, ranked, privateIds, owner, link, ownerCapture } = s;
  const { visitorContext, visitor, visitorErrors, visitorCapture } = s;
  const messages = (await adminList(COLLECTIONS.chat_messages)).filter((m) => m.chat === chatId);
  const transcript = messages.map((m) => m.content).join('\n') + '\n' + chat.title;
  const parts = await adminList(`${COLLECTIONS.chat_backgrounds}/${chatId}/${COLLECTIONS.chat_background_parts}`);
  const background = parts.sort((a, b) => Number(a.id) - Number(b.id)).map((p) => p.text ?? '').join('');
  assert.ok(background.length > 1000, 'the hidden background holds the cards’ text');
  const cards = ranked;
  const secrets = unquotedSentences(cards.filter(Boolean), background, transcript).slice(0, 5);
  assert.ok(secrets.length >= 1, 'found a sentence that is in the background but not in the answers');

  // The owner's view, reloaded straight onto the chat (no cards view loaded).
  const reload = await owner.newPage();
  await reload.addInitScript(forceLongPolling);
  const reloadCapture = captureResponses(reload);
  await reload.goto(link);
  await reload.locator('[data-testid=message][data-role=assistant][data-phase=complete]').nth(1).waitFor({ timeout: 30_000 });
  await reload.getByTestId('chat-list-item').first().waitFor();

  await Promise.all([ownerCapture.settle(), visitorCapture.settle(), reloadCapture.settle()]);
  // Capture works: the answer itself is found in what the pages received.
  const answerProbe = (/[A-Za-z][A-Za-z ]{30,}/.exec(messages.find((m) => m.role === 'assistant' && m.message_index === 1)?.content ?? '') ?? [''])[0].slice(0, 30);
  assert.ok(answerProbe.length === 30, 'the answer has a plain-text run to probe with');
  assert.ok(bodiesContaining(visitorCapture, answerProbe).length > 0, 'the visitor’s captured responses hold the answer');
  assert.ok(bodiesContaining(reloadCapture, answerProbe).length > 0, 'the owner’s captured responses hold the answer');
  const functionBodies = { bodies: ownerCapture.bodies.filter((b) => /createChat|postMessage|listModels/.test(b.url)) };
  assert.ok(functionBodies.bodies.length >= 2, 'the callables’ answers were captured');
  for (const secret of secrets) {
    assert.deepEqual(bodiesContaining(visitorCapture, secret), [], `visitor received background text: ${secret}`);
    assert.deepEqual(bodiesContaining(reloadCapture, secret), [], `owner chat view received background text: ${secret}`);
    assert.deepEqual(bodiesContaining(functionBodies, secret), [], `a callable answered with background text: ${secret}`);
    assert.equal((await visitor.locator('body').textContent()).includes(secret), false);
  }
  // The owner's data never reached the visitor: no private card id, no collection description.
  await visitorCapture.settle();
  // (The description's ASCII head: its curly quotes could travel escaped.)
  const description = priv.collection.description.split('“')[0];
  assert.ok(description.length >= 10, description);
  for (const secret of [...privateIds.map((id) => `"${id}"`), description]) {
    assert.deepEqual(bodiesContaining(visitorCapture, secret), [], `visitor received the owner's data: ${secret}`);
  }
  // A private card and a missing one look alike.
  const shown = [];
  for (const id of [privateIds[0], 'no-such-card']) {
    await visitor.goto(`${APP_URL}/card/${encodeURIComponent(id)}`);
    await visitor.getByTestId('card-unavailable').waitFor({ timeout: 30_000 });
    shown.push(await visitor.getByTestId('card-unavailable').textContent());
  }
  assert.equal(shown[0], shown[1]);
  assert.deepEqual(visitorErrors, []);
  await visitorContext.close();
  await reload.close();
  Object.assign(s, { messages, secrets });
}

/** 6b. Edit the follow-up: it is asked in a new chat (a branch) that keeps the first exchange; this chat stays. */
async function editingAFollowUpBranches(s) {
  const { page, chatId, messages, ownerCapture, secrets } = s;
  await page.getByTestId('edit-message').nth(1).click();
  await page.getByTestId('branch-input').fill('And how do I skip one commit during a rebase?');
  await screenshot(page, 'chat-branch-edit.png');
  await page.getByTestId('branch-send').click();
  await page.waitForURL((url) => /\/chat\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith(`/chat/${encodeURIComponent(chatId)}`),
    { timeout: 30_000 });
  const branchId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  await page.getByTestId('branched-from').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid=message]').nth(3).and(page.locator('[data-phase=complete]')).waitFor({ timeout: ANSWER_TIMEOUT });
  const branchTurns = await page.getByTestId('message-body').evaluateAll((els) => els.map((e) => e.textContent));
  const sourceTurns = messages.sort((a, b) => a.message_index - b.message_index).map((m) => m.content);
  assert.equal(branchTurns[0], sourceTurns[0]);
  assert.equal(branchTurns[2], 'And how do I skip one commit during a rebase?');
  assert.equal(branchTurns.length, 4);
  assert.equal((await adminList(COLLECTIONS.chat_messages)).filter((m) => m.chat === chatId).length, 4, 'the source chat is unchanged');
  await ownerCapture.settle();
  const branchBodies = { bodies: ownerCapture.bodies.filter((b) => /branchChat/.test(b.url)) };
  assert.equal(branchBodies.bodies.length, 1, 'the branchChat answer was captured');
  for (const secret of secrets) {
    assert.deepEqual(bodiesContaining(branchBodies, secret), [], `branchChat answered with background text: ${secret}`);
  }
  await page.locator(`[data-testid=chat-list-item][data-chat-id="${branchId}"]`).waitFor({ timeout: 30_000 });
  await page.locator(`[data-testid=chat-list-item][data-chat-id="${chatId}"]`).click();
  await page.waitForURL((url) => url.pathname.endsWith(`/chat/${encodeURIComponent(chatId)}`), { timeout: 30_000 });
  await page.locator('[data-testid=message][data-role=assistant][data-phase=complete]').nth(1).waitFor({ timeout: 30_000 });
}

/** 7. Delete, with confirmation. */
async function deleteWithConfirmation(s) {
  const { page, chatId } = s;
  await page.getByTestId('delete-chat').click();
  await page.getByTestId('confirm-delete').waitFor();
  await page.getByTestId('delete-confirm').click();
  await page.waitForURL((url) => !url.pathname.endsWith(`/chat/${encodeURIComponent(chatId)}`), { timeout: 30_000 });
  assert.equal(await adminGet(`${COLLECTIONS.chats}/${chatId}`), null);
  // the list learns of the delete through its listener, a moment after the call returns
  await page.locator(`[data-testid=chat-list-item][data-chat-id="${chatId}"]`).waitFor({ state: 'detached', timeout: 30_000 });
  assert.equal(await page.locator(`[data-testid=chat-list-item][data-chat-id="${chatId}"]`).count(), 0);
}
