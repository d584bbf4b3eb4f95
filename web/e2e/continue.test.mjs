// Continuing a chat: a signed-in visitor of a published chat continues it in a
// chat of their own, and asks a follow-up there. The new chat's hidden
// background is rebuilt from the cards the visitor may read: the owner's
// private card never reaches it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminGet, adminSet, APP_URL, COLLECTIONS, DESKTOP, ensureUser, launch, newContext, pageErrors, screenshot, signIn, signInRest,
} from './support.mjs';
import { ANSWER_TIMEOUT, answeredChat, backgroundText, publishAsAdmin, writeCards } from './chatsetup.mjs';

const PRIVATE = 'The lighthouse keeper hides the spare key under the third blue flowerpot by the door.';
const PUBLIC = 'The lighthouse beam turns once every twelve seconds and can be seen thirty kilometres out.';
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** The owner (the demo user) chats over a private card and a public one, and publishes the chat. */
async function ownerPublishesAChat(stamp) {
  const { uid: owner, idToken } = await signInRest();
  const privateId = `e2e-continue-private-${stamp}`;
  const publicId = `e2e-continue-public-${stamp}`;
  await writeCards(owner, [[privateId, 'Lighthouse spare key', PRIVATE], [publicId, 'Lighthouse beam', PUBLIC, 'public']]);
  const source = await answeredChat(idToken, [privateId, publicId], 'What do my lighthouse notes say?');
  assert.ok((await backgroundText(source)).includes(PRIVATE), 'the owner\'s background holds their private card');
  await publishAsAdmin(source);
  return source;
}

/** Another user, allowed to use the AI, signs in and opens the link: they read, they cannot post. */
async function visitorOpens(page, stamp, source) {
  const email = `visitor-${stamp}@cardchat.test`;
  const { uid: visitorUid } = await ensureUser(email, 'visitor-pass');
  await adminSet(`${COLLECTIONS.users}/${visitorUid}`, { may_use_ai: true, admin: false });
  await signIn(page, email, 'visitor-pass');
  await page.goto(`${APP_URL}/chat/${source}`);
  await page.locator('[data-testid=message][data-role=assistant][data-phase=complete]').first().waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('composer').count(), 0, 'a visitor cannot post in the owner\'s chat');
  return visitorUid;
}

/** Continue: a chat of the visitor's own, with the transcript so far, over only the cards they may read. */
async function continuesIntoOwnChat(page, source, visitorUid) {
  await page.getByTestId('continue-chat').click();
  await page.waitForURL((url) => url.pathname.startsWith('/chat/') && !url.pathname.endsWith(source), { timeout: 60_000 });
  const mine = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  await page.getByTestId('composer').waitFor({ timeout: 30_000 });
  await page.getByTestId('continued-from').waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('message').count(), 2, 'the transcript so far was copied');
  const chat = await adminGet(`${COLLECTIONS.chats}/${mine}`);
  assert.equal(chat.owner, visitorUid);
  assert.equal(chat.published, false);
  const background = await backgroundText(mine);
  assert.ok(background.includes(PUBLIC), 'the public card is in the visitor\'s background');
  assert.ok(!background.includes(PRIVATE), 'the owner\'s private card never reached the visitor\'s background');
}

/** A follow-up is answered in the visitor's chat, from their background. */
async function followsUp(page) {
  await page.waitForFunction(() => {
    const input = /** @type {HTMLTextAreaElement | null} */ (document.querySelector('[data-testid=composer-input]'));
    return !input?.disabled;
  });
  await page.getByTestId('composer-input').fill('How often does the lighthouse beam turn, and where is the spare key?');
  await page.getByTestId('send').click();
  const answer = page.locator('[data-testid=message][data-role=assistant]').nth(1);
  await answer.and(page.locator('[data-phase=complete]')).waitFor({ timeout: ANSWER_TIMEOUT });
  const text = await answer.getByTestId('message-body').textContent();
  assert.match(text ?? '', /twelve seconds/);
  assert.doesNotMatch(text ?? '', /flowerpot/);
}

test('continue: a signed-in visitor continues a published chat over the cards they may read, then follows up', async () => {
  const stamp = Date.now();
  const source = await ownerPublishesAChat(stamp);
  const context = await newContext(browser, DESKTOP);
  const page = await context.newPage();
  const errors = pageErrors(page);
  const visitorUid = await visitorOpens(page, stamp, source);
  await continuesIntoOwnChat(page, source, visitorUid);
  await followsUp(page);
  await screenshot(page, 'continue-desktop.png');
  assert.deepEqual(errors, []);
  await context.close();
});
