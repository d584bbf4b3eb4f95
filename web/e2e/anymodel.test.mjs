// Any model, the browser half: Settings stores a local OpenAI-compatible server (a server of this
// test, on 127.0.0.1) as the user's own endpoint, shown by its host; the start dialog offers its
// model as "model (via host)"; a chat on it shows what the server streamed, and the answer's
// details say the token counts are estimates and the cost unknown; "Look further" ticked in the start
// dialog offers that server the card search. The key is deleted at the end.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { launch, modelPickerReady, newContext, pageErrors, signIn } from './support.mjs';

const MODEL = 'e2e-local-model';
const ANSWER = ['A local model ', 'answered ', 'from your cards.'];
let browser;
let server;
/** The tool names each chat completion request offered the model. */
const offered = [];

/** GET /v1/models and a streamed POST /v1/chat/completions with no usage chunk, as Ollama's /v1 sends them. */
function compatibleServer() {
  /** @param {object} delta @param {string | null} finish */
  const chunk = (delta, finish) => `data: ${JSON.stringify({
    id: 'chatcmpl-e2e', object: 'chat.completion.chunk', created: 1, model: MODEL,
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`;
  const srv = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: MODEL, object: 'model' }] }));
      return;
    }
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      offered.push((JSON.parse(body).tools ?? []).map((t) => t.function?.name));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end([...ANSWER.map((d) => chunk({ content: d }, null)), chunk({}, 'stop'), 'data: [DONE]\n\n'].join(''));
    });
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

before(async () => {
  browser = await launch();
  server = await compatibleServer();
});
after(async () => {
  await browser?.close();
  server?.close();
});

test('a local OpenAI-compatible server becomes the user\'s own model and answers a chat', async () => {
  const context = await newContext(browser);
  const page = await context.newPage();
  const errors = pageErrors(page);
  const host = `127.0.0.1:${server.address().port}`;
  await signIn(page);
  try {
    await storeEndpoint(page, host);
    await chatOnIt(page, host);
  } finally {
    await deleteEndpoint(page);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

/** 1. Settings: the base URL and a key; the endpoint is shown by its host and the key's last 4. */
async function storeEndpoint(page, host) {
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('key-url-openai_compatible').fill(`http://${host}/v1`);
  await page.getByTestId('key-input-openai_compatible').fill('any-word-1234');
  await page.getByTestId('key-save-openai_compatible').click();
  const held = page.getByTestId('key-held-openai_compatible');
  await held.waitFor({ timeout: 30_000 });
  assert.equal(await held.textContent(), `key ending in 1234 at ${host}`);
}

/** 2. The start dialog offers its model by host; the chat shows what the server streamed. */
async function chatOnIt(page, host) {
  await page.getByTestId('nav-cards').click();
  await page.waitForFunction(() => /^\d+ cards? shown/.test(document.querySelector('[data-testid=card-count]')?.textContent ?? ''),
    null, { timeout: 60_000 });
  await page.getByTestId('chat-with-cards').click();
  await page.getByTestId('start-chat-dialog').waitFor();
  await page.waitForFunction(modelPickerReady, null, { timeout: 30_000 });
  const option = page.locator('[data-testid=model-picker] option', { hasText: `${MODEL} (via ${host})` });
  await page.getByTestId('model-picker').selectOption(await option.getAttribute('value'));
  await page.getByTestId('start-message').fill('What do my cards say about rebasing?');
  await page.getByTestId('start-look-further').check();
  await page.getByTestId('start-submit').click();
  await page.waitForURL(/\/chat\/[^/]+$/, { timeout: 120_000 });
  const answer = page.locator('[data-testid=message][data-role=assistant]').first();
  // Complete, and its text revealed to the end: the page reveals a streamed answer over a few frames.
  await answer.and(page.locator('[data-phase=complete]:not(.revealing)')).waitFor({ timeout: 120_000 });
  assert.equal((await answer.getByTestId('message-body').textContent())?.trim(), ANSWER.join(''));
  assert.deepEqual(offered[0], ['search_cards'], 'the answer\'s request offered the card search');
  assert.equal(await page.getByTestId('look-further-toggle').isChecked(), true);
  await answer.getByTestId('details-toggle').click();
  await answer.getByTestId('answer-details').waitFor();
  await page.waitForFunction(() => /estimated/.test(document.querySelector('[data-testid=detail-tokens]')?.textContent ?? ''),
    null, { timeout: 30_000 });
  assert.equal(await answer.getByTestId('detail-cost').textContent(), 'unknown');
}

/** 3. The demo user's keys as they were: the other stories pick their models from the same list. */
async function deleteEndpoint(page) {
  await page.getByTestId('nav-settings').click();
  const remove = page.getByTestId('key-delete-openai_compatible');
  if (await remove.count()) {
    await remove.click();
    await page.getByTestId('key-held-openai_compatible').waitFor({ state: 'detached', timeout: 30_000 });
  }
}
