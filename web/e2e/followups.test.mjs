// Suggested follow-ups: after an answer its owner is offered up to three
// questions, made from the titles of cards near the ones it cited that it did
// not cite; a click asks one. A visitor of the published chat is offered none
// (those titles are of cards behind the chat).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminGet, adminList, adminSet, APP_URL, AUTH, callFunction, COLLECTIONS, DESKTOP, FIRESTORE, launch, newContext, pageErrors, PROJECT,
  signIn, signInRest, until,
} from './support.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const CARDS = {
  beam: ['Lighthouse beam', 'The lighthouse beam turns once every twelve seconds.'],
  lens: ['Lighthouse lens', 'A Fresnel lens bends the light of the lamp into one narrow ray.'],
  paint: ['Lighthouse paint', 'The tower is painted in red and white bands every five years.'],
  tax: ['Quarterly tax', 'The quarterly tax payment is due after each quarter.'],
};

/** The demo user's chat over four cards, answered offline; its answer's cited titles. */
async function answeredChat(stamp) {
  const { uid: owner, idToken } = await signInRest();
  const now = new Date();
  const ids = {};
  for (const [key, [title, body]] of Object.entries(CARDS)) {
    ids[key] = `${owner}_e2e-followups-${key}-${stamp}`;
    await adminSet(`${COLLECTIONS.cards}/${ids[key]}`, { title, body, owner, visibility: 'private', viewers: [], tags: [], created: now, updated: now });
  }
  const { chat_id: chatId } = await callFunction('createChat', {
    card_ids: Object.values(ids), initial_message: 'How often does the lighthouse beam turn?', model: 'offline-extractive',
  }, idToken);
  const answer = await until('the answer', async () => {
    const m = await adminGet(`${COLLECTIONS.chat_messages}/${chatId}-0001`);
    return m?.status === 'complete' ? m : null;
  });
  const packed = (await adminGet(`${COLLECTIONS.chat_private}/${chatId}`)).card_ids;
  const titleOf = Object.fromEntries(Object.entries(ids).map(([key, id]) => [id, CARDS[key][0]]));
  const cited = (answer.sources ?? []).map((n) => titleOf[packed[n - 1]]);
  assert.ok(cited.includes('Lighthouse beam'), `the answer cites the beam card: ${cited}`);
  return { chatId, cited };
}

/** The owner sees suggestions naming none of the cited cards, and a click asks the first. */
async function ownerAsksOne(page, { chatId, cited }) {
  await page.goto(`${APP_URL}/chat/${chatId}`);
  const offered = page.getByTestId('followups').getByTestId('followup');
  await offered.first().waitFor({ timeout: 60_000 });
  const questions = await offered.allTextContents();
  assert.ok(questions.length >= 1 && questions.length <= 3, `${questions}`);
  for (const title of cited) assert.ok(!questions.some((q) => q.includes(title)), `no cited card (${title}) among ${questions}`);
  await offered.first().click();
  await page.locator('[data-testid=message][data-role=user]', { hasText: questions[0] }).waitFor({ timeout: 30_000 });
  const asked = await until('the question asked', async () => (await adminList(COLLECTIONS.chat_messages))
    .find((m) => m.chat === chatId && m.message_index === 2), 30_000);
  assert.equal(asked.content, questions[0]);
  assert.equal(asked.role, 'user');
  await page.getByTestId('followups').waitFor({ state: 'hidden', timeout: 30_000 }); // the answer had its turn
}

/** A visitor of the published chat reads the answer and is offered nothing. */
async function visitorSeesNone(page, stamp, chatId) {
  const email = `followups-visitor-${stamp}@cardchat.test`;
  const res = await fetch(`http://${AUTH}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-key`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'visitor-pass', returnSecureToken: true }),
  });
  assert.ok(res.ok);
  const url = `http://${FIRESTORE}/v1/projects/${PROJECT}/databases/(default)/documents/${COLLECTIONS.chats}/${chatId}?updateMask.fieldPaths=published`;
  const published = await fetch(url, {
    method: 'PATCH', headers: { Authorization: 'Bearer owner', 'content-type': 'application/json' },
    body: JSON.stringify({ fields: { published: { booleanValue: true } } }),
  });
  assert.ok(published.ok);
  await signIn(page, email, 'visitor-pass');
  await page.goto(`${APP_URL}/chat/${chatId}`);
  await page.locator('[data-testid=message][data-role=assistant][data-phase=complete]').first().waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('followup').count(), 0, 'no suggestion for a visitor');
  assert.equal(await page.getByTestId('followups').count(), 0, 'not even the empty panel');
}

test('follow-ups: the owner is offered questions from near uncited cards and a click asks one; a visitor is offered none', async () => {
  const stamp = Date.now();
  const chat = await answeredChat(stamp);
  const owner = await newContext(browser, DESKTOP);
  const page = await owner.newPage();
  const errors = pageErrors(page);
  await signIn(page);
  await ownerAsksOne(page, chat);
  assert.deepEqual(errors, []);
  await owner.close();
  const visitor = await newContext(browser, DESKTOP);
  await visitorSeesNone(await visitor.newPage(), stamp, chat.chatId);
  await visitor.close();
});
