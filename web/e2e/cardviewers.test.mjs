// Card viewers: the card editor takes viewers by email. The owner types
// a new account's address (and a mistyped one, refused), the card keeps the
// uid, the editor names it back by address, and the viewer reads the card.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminDelete, adminGet, adminList, APP_URL, AUTH, COLLECTIONS, FIRESTORE, PROJECT, launch, newContext, pageErrors, signIn,
} from './support.mjs';

const TITLE = `Shared by address ${Date.now()}`;
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function signUp(email, password) {
  const res = await fetch(`http://${AUTH}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-key`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, returnSecureToken: true }),
  });
  if (!res.ok) throw new Error(`auth emulator sign-up failed: ${res.status} ${await res.text()}`);
  const j = await res.json();
  return { uid: j.localId, idToken: j.idToken };
}

/** The card as `idToken`'s user reads it through the rules (REST), or the HTTP status. */
async function readAs(cardId, idToken) {
  const res = await fetch(`http://${FIRESTORE}/v1/projects/${PROJECT}/databases/(default)/documents/${COLLECTIONS.cards}/${cardId}`,
    { headers: { Authorization: `Bearer ${idToken}` } });
  return res.status;
}

/** 1. A new private card with a viewer's address and a mistyped one: the save is refused, naming it. */
async function refusesAnUnknownAddress(page, viewerEmail, nobody) {
  await page.goto(`${APP_URL}/new`);
  await page.getByTestId('edit-title').fill(TITLE);
  await page.getByTestId('edit-body').fill('Only for the people named here.');
  await page.getByTestId('edit-visibility').selectOption('private');
  await page.getByTestId('edit-viewers').fill(`${viewerEmail.toUpperCase()}\n${nobody}`);
  await page.getByTestId('edit-save').click();
  await page.getByText(`No Cardchat account has the address ${nobody}`).waitFor({ timeout: 30_000 });
  assert.equal((await adminList(COLLECTIONS.cards)).filter((c) => c.title === TITLE).length, 0, 'nothing saved');
}

/** 2. Without it the card saves, keeping the viewer's uid (never an address). */
async function savesTheUid(page, viewer, viewerEmail) {
  await page.getByTestId('edit-viewers').fill(viewerEmail);
  await page.getByTestId('edit-save').click();
  await page.getByTestId('card-page').waitFor({ timeout: 30_000 });
  const cardId = await page.getByTestId('card-page').getAttribute('data-card-id');
  const stored = await adminGet(`${COLLECTIONS.cards}/${cardId}`);
  assert.deepEqual(stored.viewers, [viewer.uid]);
  assert.ok(!JSON.stringify(stored).includes('@'), 'the card holds no address');
  return cardId;
}

test('card viewers by email: an unknown address is refused, the card keeps uids, the editor names them, the viewer reads it', async () => {
  const viewerEmail = `viewer-${Date.now()}@cardchat.test`;
  const viewer = await signUp(viewerEmail, 'viewer-pass');
  const context = await newContext(browser);
  const page = await context.newPage();
  const errors = pageErrors(page);
  let cardId = null;
  try {
    await signIn(page);
    await refusesAnUnknownAddress(page, viewerEmail, `nobody-${Date.now()}@cardchat.test`);
    cardId = await savesTheUid(page, viewer, viewerEmail);
    assert.equal(await readAs(cardId, viewer.idToken), 200, 'the viewer reads the card');
    await page.goto(`${APP_URL}/card/${encodeURIComponent(cardId)}/edit`);
    await page.waitForFunction((email) => /** @type {HTMLTextAreaElement | null} */ (document.querySelector('[data-testid=edit-viewers]'))?.value === email,
      viewerEmail, { timeout: 30_000 });
    assert.deepEqual(errors, []);
  } finally {
    if (cardId) await adminDelete(`${COLLECTIONS.cards}/${cardId}`);
    await context.close();
  }
});
