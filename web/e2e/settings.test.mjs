// Personal access tokens, the browser half: Settings creates a personal access token, shows it
// once, lists it without it, and revokes it; the token works against the MCP
// endpoint until then and gets 401 right after.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, newContext, pageErrors, signIn } from './support.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

async function listTools(url, token) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  return { status: res.status, body: await res.json() };
}

test('a token is created and shown once, listed without it, works over MCP, and is revoked at once', async () => {
  const context = await newContext(browser);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page);
  await page.getByTestId('nav-settings').click();
  const url = (await page.getByTestId('mcp-url').textContent()).trim();
  assert.match(url, /\/us-central1\/mcp$/);

  const label = `e2e token ${Date.now()}`;
  await page.getByTestId('token-label').fill(label);
  await page.getByTestId('token-create').click();
  const token = (await page.getByTestId('token-value').textContent({ timeout: 60_000 })).trim();
  assert.match(token, /^ccpat_[\w-]{40,}$/);
  const item = page.getByTestId('token-item').filter({ hasText: label });
  await item.waitFor({ timeout: 30_000 });
  assert.match(await item.textContent(), /last used never/);
  assert.ok(!(await page.getByTestId('token-list').textContent()).includes(token), 'the list never shows the token');

  const listed = await listTools(url, token);
  assert.equal(listed.status, 200);
  assert.ok(listed.body.result.tools.some((t) => t.name === 'search_cards'));
  await page.waitForFunction(
    (l) => [...document.querySelectorAll('[data-testid=token-item]')].some((e) => e.textContent.includes(l) && !e.textContent.includes('last used never')),
    label, { timeout: 30_000 },
  );

  // Leaving and coming back: the token is not shown again.
  await page.getByTestId('nav-cards').click();
  await page.getByTestId('nav-settings').click();
  await item.waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('token-value').count(), 0);

  page.once('dialog', (d) => void d.accept());
  await item.getByTestId('token-revoke').click();
  await item.waitFor({ state: 'detached', timeout: 30_000 });
  assert.equal((await listTools(url, token)).status, 401);
  assert.deepEqual(errors, []);
  await context.close();
});
