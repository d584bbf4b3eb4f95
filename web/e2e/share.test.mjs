// Sharing: A shares a chat with B by email; B finds it under "Shared with
// me", reads it live while A's next answer streams (as a visitor would: no
// composer, nothing of A's chat_private or private card ids), and sees that
// access was removed the moment A removes them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminGet, adminList, APP_URL, AUTH, callFunction, captureResponses, COLLECTIONS, DESKTOP, launch, newContext,
  pageErrors, signIn, signInRest,
} from './support.mjs';

const ANSWER_TIMEOUT = 120_000;
/** The demo user's display name (scripts/seed_users.py): what A's author chip shows. */
const A_NAME = 'Demo User';
let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

async function signUpRest(email, password) {
  const res = await fetch(`http://${AUTH}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-key`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, returnSecureToken: true }),
  });
  if (!res.ok) throw new Error(`auth emulator sign-up failed: ${res.status} ${await res.text()}`);
  return (await res.json()).localId;
}

async function signInAs(page, email, password) {
  await page.goto(`${APP_URL}/chat/`);
  await page.locator('#signin-email').fill(email);
  await page.locator('#signin-password').fill(password);
  await page.getByTestId('signin-submit').click();
  await page.getByTestId('user-email').waitFor({ timeout: 30_000 });
}

/** Every distinct text of the n-th assistant message until it completes, recorded frame by frame. */
async function recordAnswer(page, n) {
  await page.evaluate((nth) => {
    const w = window;
    w.__answerStates = [];
    const tick = () => {
      const el = /** @type {HTMLElement | undefined} */ (document.querySelectorAll('[data-testid=message][data-role=assistant]')[nth]);
      const text = el?.querySelector('[data-testid=message-body]')?.textContent ?? '';
      const done = el?.dataset.phase === 'complete' && !el.classList.contains('revealing');
      if (text && w.__answerStates.at(-1)?.text !== text) w.__answerStates.push({ text, done });
      if (!done) requestAnimationFrame(tick);
      else w.__answerStates.push({ text, done: true });
    };
    requestAnimationFrame(tick);
  }, n);
}

async function answerComplete(id) {
  for (let i = 0; i < ANSWER_TIMEOUT / 250; i += 1) {
    const m = await adminGet(`${COLLECTIONS.chat_messages}/${id}`);
    if (m && ['complete', 'failed'].includes(m.status)) return m;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${id} did not finish`);
}

/** A (the demo user) has a chat over a few of their cards; returns it and the private card ids in its context. */
async function aHasAChat() {
  const a = await signInRest();
  const cards = (await adminList(COLLECTIONS.cards)).filter((c) => c.owner === a.uid).slice(0, 40);
  const { chat_id: chatId } = await callFunction('createChat', {
    card_ids: cards.map((c) => c.id), initial_message: 'How do I undo my last commit?', model: 'offline-extractive',
  }, a.idToken);
  assert.equal((await answerComplete(`${chatId}-0001`)).status, 'complete');
  const priv = await adminGet(`${COLLECTIONS.chat_private}/${chatId}`);
  const privateIds = priv.card_ids.filter((id) => cards.find((c) => c.id === id)?.visibility !== 'public');
  return { chatId, privateIds };
}

/** 1. A shares the chat with B from the Share dialog. */
async function aSharesWithB(pageA, chatId, bEmail, bUid) {
  await signIn(pageA);
  await pageA.goto(`${APP_URL}/chat/${encodeURIComponent(chatId)}`);
  await pageA.getByTestId('share-chat').click();
  await pageA.getByTestId('share-nobody').waitFor();
  await pageA.getByTestId('share-email').fill(bEmail);
  await pageA.getByTestId('share-add').click();
  await pageA.locator(`[data-testid=share-viewer][data-email="${bEmail}"]`).waitFor();
  // whom it is shared with is B's viewer doc, never a list on the chat (which visitors read)
  assert.equal((await adminGet(`${COLLECTIONS.chat_viewers}/${chatId}_${bUid}`))?.viewer, bUid);
  assert.equal((await adminGet(`${COLLECTIONS.chats}/${chatId}`)).viewers, undefined);
  await pageA.getByTestId('share-close').click();
  await pageA.getByTestId('share-chat').and(pageA.getByText('Shared with 1…')).waitFor();
}

/** 2. B finds it under "Shared with me", with A's name on the chip, and opens it read-only. */
async function bFindsAndOpens(pageB, chatId, bEmail) {
  await signInAs(pageB, bEmail, 'b-password');
  const item = pageB.locator(`[data-testid=shared-chat-item][data-chat-id="${chatId}"]`);
  await item.waitFor({ timeout: 30_000 });
  await item.getByTestId('author-chip').and(pageB.getByText(`by ${A_NAME}`)).waitFor();
  await item.click();
  await pageB.getByTestId('message-body').first().waitFor({ timeout: 30_000 });
  await pageB.getByTestId('read-only-note').and(pageB.getByText(/^Shared with you/)).waitFor();
  const headerChip = pageB.locator('.chat-header').getByTestId('author-chip');
  await headerChip.waitFor();
  assert.equal(await headerChip.textContent(), `by ${A_NAME}`);
  assert.equal(await pageB.getByTestId('composer-input').count(), 0);
  assert.equal(await pageB.getByTestId('share-chat').count(), 0);
  await pageB.getByTestId('continue-chat').waitFor({ state: 'attached' }); // a viewer may continue it as their own
}

/** 3. A asks a follow-up; B watches the answer grow in, live. */
async function bWatchesAFollowUpLive(pageA, pageB) {
  await recordAnswer(pageB, 1);
  const input = pageA.getByTestId('composer-input');
  await pageA.waitForFunction(() => {
    const box = /** @type {HTMLTextAreaElement | null} */ (document.querySelector('[data-testid=composer-input]'));
    return !box?.disabled;
  });
  await input.fill('And how do I undo a rebase?');
  await input.press('Enter');
  await pageB.locator('[data-testid=message][data-role=assistant]').nth(1)
    .and(pageB.locator('[data-phase=complete]')).waitFor({ timeout: ANSWER_TIMEOUT });
  await pageB.waitForFunction(() => window.__answerStates?.at(-1)?.done === true, null, { timeout: 30_000 });
  const states = await pageB.evaluate(() => window.__answerStates);
  const final = states.at(-1).text;
  const partial = new Set(states.filter((s) => !s.done && s.text.length < final.length).map((s) => s.text));
  assert.ok(partial.size >= 2, `B saw ${partial.size} partial states of the streaming answer`);
}

/** 4. A removes B: B's open page says access was removed. */
async function aRemovesB(pageA, pageB, chatId, bEmail, bUid) {
  await pageA.getByTestId('share-chat').click();
  await pageA.locator(`[data-testid=share-viewer][data-email="${bEmail}"]`).getByTestId('share-remove').click();
  await pageA.getByTestId('share-nobody').waitFor();
  await pageB.getByTestId('access-removed').waitFor({ timeout: 30_000 });
  assert.match((await pageB.getByTestId('access-removed').textContent()) ?? '', /access to this chat was removed/);
  assert.equal(await adminGet(`${COLLECTIONS.chat_viewers}/${chatId}_${bUid}`), null);
  await pageB.locator(`[data-testid=shared-chat-item][data-chat-id="${chatId}"]`).waitFor({ state: 'detached', timeout: 30_000 });
  await pageA.getByTestId('share-close').click();
  await pageA.getByTestId('share-chat').and(pageA.getByText('Share…')).waitFor();
}

/** B read what a visitor reads: nothing of chat_private, no private card id. */
async function bReceivedNothingPrivate(seenByB, privateIds) {
  await seenByB.settle();
  assert.ok(seenByB.bodies.length > 0, 'the long-polling responses were captured');
  // A card id as a stored value (the answers may well mention "git-blame" in their text).
  const escape = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const received = (id) => seenByB.bodies.some((b) => new RegExp(`"stringValue":\\s*"${escape(id)}"`).test(b.text));
  for (const id of privateIds) assert.ok(!received(id), `B received the card id ${id}`);
  assert.ok(received('offline-extractive'), 'the probe finds a value B may read (the chat\'s model)');
  const owners = seenByB.bodies.filter((b) => b.url.includes('google.firestore') && /chat_private|"card_ids"|"background_tokens"/.test(b.text))
    .map((b) => b.url);
  assert.deepEqual(owners, [], 'B received chat_private');
}

test('share: B finds a shared chat, reads it live while it streams, loses access when removed', async () => {
  const { chatId, privateIds } = await aHasAChat();
  const bEmail = `b${Date.now()}@cardchat.test`;
  const bUid = await signUpRest(bEmail, 'b-password');
  const ctxA = await newContext(browser, DESKTOP);
  const pageA = await ctxA.newPage();
  const errorsA = pageErrors(pageA);
  await aSharesWithB(pageA, chatId, bEmail, bUid);
  const ctxB = await newContext(browser, DESKTOP, { longPolling: true });
  const pageB = await ctxB.newPage();
  const errorsB = pageErrors(pageB);
  const seenByB = captureResponses(pageB);
  await bFindsAndOpens(pageB, chatId, bEmail);
  await bWatchesAFollowUpLive(pageA, pageB);
  await aRemovesB(pageA, pageB, chatId, bEmail, bUid);
  await bReceivedNothingPrivate(seenByB, privateIds);
  assert.deepEqual(errorsA, []);
  assert.deepEqual(errorsB, []);
  await ctxA.close();
  await ctxB.close();
});
