// A newcomer's first minutes, in Chromium, on a stack scripts/dev has just
// called ready (benchmarks/bench_newcomer.py starts it; export the env it
// prints to run this alone): sign in as the demo user, wait for the Cards page
// to settle on its count, "Chat with all N cards" with the offline model, ask
// a question, then a follow-up. Times in the page's own clock: sign-in →
// count settled, Send → chat page, Send → first visible answer text, and the
// follow-up's Send → first text; reads whether the chat was ranked by
// keywords alone for some cards (the header's "not embedded yet").
// Prints a line for people, then the figures as one JSON line (the driver's).
// scripts/warm_browser.mjs walks the same path once before scripts/dev says ready.
import { pathToFileURL } from 'node:url';
import { APP_URL, EMAIL, PASSWORD, launch, newContext } from '../web/e2e/support.mjs';
import { askFirst, askFollowUp } from './send_and_watch.mjs';

const QUESTION = 'How do I undo the last commit';
const FOLLOW_UP = 'And if I already pushed it?';
const LIMIT = 120_000;

/** In the page: the app's own marks and spans (web/src/app/timing.ts) from `from` on, in ms after it. */
function spansSince([from, until]) {
  const t0 = window.__t[from];
  return performance.getEntries()
    .filter((e) => e.name.startsWith('cardchat:') && e.startTime >= t0 && e.startTime <= window.__t[until])
    .map((e) => `${e.name.slice(9)} ${(e.startTime - t0).toFixed(0)}${e.duration ? `+${e.duration.toFixed(0)}` : ''}`)
    .join(', ');
}

/** Sign in; ms from the click to the count "N cards shown" (the Cards page settled). */
async function signInAndSettle(page) {
  await page.goto(`${APP_URL}/`);
  await page.locator('#signin-email').fill(EMAIL);
  await page.locator('#signin-password').fill(PASSWORD);
  await page.evaluate(() => {
    window.__t = { signin: performance.now() };
    const settled = () => /^\d+ cards? shown/.test(document.querySelector('[data-testid=card-count]')?.textContent ?? '');
    const tick = () => (settled() ? (window.__t.settled = performance.now()) : requestAnimationFrame(tick));
    requestAnimationFrame(tick);
    document.querySelector('[data-testid=signin-submit]').click();
  });
  await page.waitForFunction(() => window.__t.settled, null, { timeout: LIMIT });
  return { settle: await page.evaluate(() => window.__t.settled - window.__t.signin), spans: await page.evaluate(spansSince, ['signin', 'settled']) };
}

/** "Chat with all N cards", the offline model, the question: Send → chat page and → first text. */
async function firstQuestion(page) {
  const t = await askFirst(page, QUESTION, { limit: LIMIT, marks: 'keep' });
  await page.getByTestId('chat-counts').waitFor({ timeout: LIMIT });
  const counts = await page.getByTestId('chat-counts').textContent();
  const spans = await page.evaluate(spansSince, ['send', 'first']);
  return { ...t, keywordsOnly: /not embedded yet/.test(counts ?? ''), counts, spans };
}

/** The newcomer's path in a fresh browser context: its figures, and the chat it made. */
export async function walk(browser) {
  const context = await newContext(browser);
  try {
    const page = await context.newPage();
    const signedIn = await signInAndSettle(page);
    const first = await firstQuestion(page);
    const chatId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    const follow = await askFollowUp(page, FOLLOW_UP, { limit: LIMIT });
    return { settle: signedIn.settle, page: first.page, text: first.text, follow, keywordsOnly: first.keywordsOnly,
      counts: first.counts, signInSpans: signedIn.spans, sendSpans: first.spans, chatId };
  } finally {
    await context.close();
  }
}

async function main() {
  const browser = await launch();
  try {
    const r = await walk(browser);
    console.log(`sign-in → count ${r.settle.toFixed(0)} ms; Send → chat page ${r.page.toFixed(0)} ms, → first text ${r.text.toFixed(0)} ms;`
      + ` follow-up → first text ${r.follow.toFixed(0)} ms; ${r.keywordsOnly ? 'ranked by keywords alone for some cards' : 'hybrid'} (${r.counts})`);
    console.log(`after sign-in: ${r.signInSpans}\nafter Send: ${r.sendSpans}`);
    console.log(JSON.stringify(r));
  } finally {
    await browser.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
