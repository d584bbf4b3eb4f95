// An answer becomes a card: the chat's owner saves a complete answer as a
// card. The editor opens pre-filled (its citations links to the cited cards
// the owner can still read, the others plain text) and nothing is written
// until Save; the saved card is private and records the answer it came from.
// A visitor of the published chat is offered no such action.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminDelete, adminGet, adminList, APP_URL, COLLECTIONS, DESKTOP, ensureUser, launch, newContext, pageErrors, signIn, signInRest,
  until,
} from './support.mjs';
import { answeredChat, completeMessage, publishAsAdmin, writeCards } from './chatsetup.mjs';

const KEPT = 'The lighthouse beam turns once every twelve seconds and can be seen thirty kilometres out.';
const GONE = 'The lighthouse keeper logs the weather at dawn and at dusk in the blue lighthouse logbook.';
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** The owner (the demo user) chats over two cards of theirs; the answer cites both; then one of them is deleted. */
async function ownerHasAnAnswer(stamp) {
  const { uid: owner, idToken } = await signInRest();
  const kept = `${owner}_e2e-answercard-kept-${stamp}`;
  const gone = `${owner}_e2e-answercard-gone-${stamp}`;
  await writeCards(owner, [[kept, 'Lighthouse beam', KEPT], [gone, 'Lighthouse logbook', GONE]]);
  const chatId = await answeredChat(idToken, [kept, gone], 'What do my lighthouse notes say about the beam and the logbook?');
  const answer = await completeMessage(chatId);
  const ids = (await adminGet(`${COLLECTIONS.chat_private}/${chatId}`)).card_ids;
  for (const id of [kept, gone]) assert.ok(answer.content.includes(`[${ids.indexOf(id) + 1}]`), `the answer cites ${id}`);
  await adminDelete(`${COLLECTIONS.cards}/${gone}`);
  await publishAsAdmin(chatId);
  return { chatId, messageId: `${chatId}-0001`, kept, gone, owner };
}

/** "Save as card" opens the editor pre-filled; nothing is written yet. */
async function savesAsCard(page, { chatId, kept, gone }) {
  await signIn(page);
  await page.goto(`${APP_URL}/chat/${chatId}`);
  const answer = page.locator('[data-testid=message][data-role=assistant][data-phase=complete]').first();
  await answer.getByTestId('save-as-card').click();
  await page.waitForURL((url) => url.pathname === '/new', { timeout: 30_000 });
  const body = await page.getByTestId('edit-body').inputValue();
  assert.match(body, /twelve seconds/);
  assert.ok(body.includes(`](/card/${encodeURIComponent(kept)})`), `a readable card's citation is a link: ${body}`);
  assert.ok(!body.includes(gone), 'a card the owner can no longer read is no link');
  assert.equal(await page.getByTestId('edit-preview').locator(`a[href="/card/${encodeURIComponent(kept)}"]`).count() > 0, true);
  assert.equal(await page.getByTestId('edit-visibility').inputValue(), 'private');
  assert.equal((await adminList(COLLECTIONS.cards)).filter((c) => c.derived_from?.chat_id === chatId).length, 0, 'nothing written before Save');
}

/** Save: the card exists, private, recording the answer it came from. */
async function saves(page, { chatId, messageId, owner }) {
  await page.getByTestId('edit-save').click();
  await page.waitForURL((url) => url.pathname.startsWith('/card/'), { timeout: 30_000 });
  const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  const card = await until('the saved card', () => adminGet(`${COLLECTIONS.cards}/${id}`), 30_000);
  assert.equal(card.owner, owner);
  assert.equal(card.visibility, 'private');
  assert.deepEqual(card.derived_from, { chat_id: chatId, message_id: messageId });
}

/** A visitor of the published chat reads the answer and is offered no "Save as card". */
async function visitorHasNoAction(page, stamp, chatId) {
  const email = `answercard-visitor-${stamp}@cardchat.test`;
  await ensureUser(email, 'visitor-pass');
  await signIn(page, email, 'visitor-pass');
  await page.goto(`${APP_URL}/chat/${chatId}`);
  const answer = page.locator('[data-testid=message][data-role=assistant][data-phase=complete]').first();
  await answer.getByTestId('copy-message').waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('save-as-card').count(), 0, 'no "Save as card" for a visitor');
}

test('answer card: the owner saves an answer as a private card with its citations as links; a visitor cannot', async () => {
  const stamp = Date.now();
  const chat = await ownerHasAnAnswer(stamp);
  const owner = await newContext(browser, DESKTOP);
  const page = await owner.newPage();
  const errors = pageErrors(page);
  await savesAsCard(page, chat);
  await saves(page, chat);
  assert.deepEqual(errors, []);
  await owner.close();
  const visitor = await newContext(browser, DESKTOP);
  await visitorHasNoAction(await visitor.newPage(), stamp, chat.chatId);
  await visitor.close();
});
