// Leaving, in the browser: Settings deletes the account after the user types their email. The
// server wants a sign-in of the last few minutes: a call on an older one is refused ("sign in
// again"), the page asks for the password, signs in again and deletes; the account is gone.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ensureUser, launch, newContext, pageErrors, signIn, signInRest } from './support.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** The Auth emulator's unsigned ID token `token`, its sign-in an hour earlier. */
function signedInAnHourAgo(token) {
  const [head, body, sig] = token.split('.');
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
  claims.auth_time = Math.floor(Date.now() / 1000) - 3600;
  return [head, Buffer.from(JSON.stringify(claims)).toString('base64url'), sig].join('.');
}

/** The first deleteAccount call goes out on a token whose sign-in is an hour old; later ones as sent. */
async function firstCallSignedInLongAgo(page) {
  let first = true;
  await page.route('**/deleteAccount', async (route) => {
    const headers = route.request().headers();
    if (first && headers.authorization) {
      first = false;
      headers.authorization = `Bearer ${signedInAnHourAgo(headers.authorization.replace(/^Bearer /, ''))}`;
    }
    await route.continue({ headers });
  });
}

async function askToDelete(page, email) {
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('delete-account-email').fill(email);
  await page.getByTestId('delete-account').click();
}

async function signInAgainAndDelete(page, password) {
  const status = page.getByTestId('delete-account-status');
  await page.getByTestId('delete-account-password').waitFor({ timeout: 60_000 });
  assert.match(await status.textContent(), /sign in again/i);
  await page.getByTestId('delete-account-password').fill(password);
  await page.getByTestId('delete-account-sign-in').click();
  // Deleted, the user is signed out: the app shows its sign-in page.
  await page.getByTestId('signin').waitFor({ timeout: 180_000 }).catch(async (err) => {
    throw new Error(`not signed out; the section says: ${await status.textContent().catch(() => '?')}`, { cause: err });
  });
}

test('an old sign-in is asked to sign in again, then the account is deleted', async () => {
  const email = `leave-${Date.now()}@cardchat.test`;
  const password = 'leave-pass-123';
  await ensureUser(email, password);
  const context = await newContext(browser);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page, email, password);
  await firstCallSignedInLongAgo(page);
  await askToDelete(page, email);
  await signInAgainAndDelete(page, password);
  await assert.rejects(signInRest(email, password));
  assert.deepEqual(errors, []);
  await context.close();
});
