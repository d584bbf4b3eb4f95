// Send → first visible answer text in the browser, on a running scripts/dev
// stack (export the env it prints, then: node benchmarks/browser_ttft.mjs).
// As the demo user, starts BENCH_RUNS (default 5) offline chats over every
// card the cards view shows and asks one follow-up in each; times, in the
// page's own clock, Send (the click, the Enter) → the chat page, and Send →
// the first frame whose assistant message body has text. Leaves the chats
// (delete them in the app, or restart scripts/dev).
import { APP_URL, launch, newContext, signIn } from '../web/e2e/support.mjs';
import { watchFirstText } from './page_probes.mjs';

const RUNS = Number(process.env.BENCH_RUNS || 5);
const QUESTIONS = [
  ['How do I squash my last commits with an interactive rebase?', 'And how do I abort a rebase that went wrong?'],
  ['How can I move my commits onto a different base?', 'What happens to the old commits?'],
  ['How do I undo the last commit but keep my changes?', 'And if I already pushed it?'],
  ['What does git stash pop do?', 'How do I list my stashes?'],
  ['How do I see which branches are merged?', 'How do I delete a merged branch?'],
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.round(0.95 * (xs.length - 1)))];

async function oneChat(page, [question, followUp]) {
  await page.goto(`${APP_URL}/`);
  await page.waitForFunction(() => /^\d+ cards? shown/.test(document.querySelector('[data-testid=card-count]')?.textContent ?? ''),
    null, { timeout: 60_000 });
  await page.getByTestId('chat-with-cards').click();
  await page.waitForFunction(() => !document.querySelector('[data-testid=model-picker]')?.disabled, null, { timeout: 30_000 });
  const offline = await page.locator('[data-testid=model-picker] option[data-offline=true]').first().getAttribute('value');
  await page.getByTestId('model-picker').selectOption(offline);
  await page.getByTestId('start-message').fill(question);
  await page.evaluate(() => {
    const w = window;
    w.__t = { send: performance.now() };
    new MutationObserver((_, obs) => {
      if (document.body.dataset.route === 'chat' && document.querySelector('[data-testid=chat-title]')) {
        w.__t.page = performance.now();
        obs.disconnect();
      }
    }).observe(document.body, { attributes: true, childList: true, subtree: true });
    document.querySelector('[data-testid=start-submit]').click();
  });
  await page.evaluate(watchFirstText, [0, 'first']);
  await page.waitForFunction(() => window.__t.first, null, { timeout: 120_000 });
  await page.locator('[data-testid=message][data-role=assistant][data-phase=complete]').first().waitFor({ timeout: 120_000 });
  const first = await page.evaluate(() => ({ page: window.__t.page - window.__t.send, text: window.__t.first - window.__t.send }));

  const input = page.getByTestId('composer-input');
  await page.waitForFunction(() => !document.querySelector('[data-testid=composer-input]')?.disabled);
  await input.fill(followUp);
  await page.evaluate(() => {
    document.querySelector('[data-testid=composer-input]').addEventListener('keydown', (e) => {
      if (e.key === 'Enter') window.__t.send2 = performance.now();
    }, { capture: true, once: true });
  });
  await page.evaluate(watchFirstText, [1, 'follow']);
  await input.press('Enter');
  await page.waitForFunction(() => window.__t.follow, null, { timeout: 120_000 });
  const follow = await page.evaluate(() => window.__t.follow - window.__t.send2);
  await page.locator('[data-testid=message][data-role=assistant][data-phase=complete]').nth(1).waitFor({ timeout: 120_000 });
  return { ...first, follow };
}

const browser = await launch();
try {
  const page = await (await newContext(browser)).newPage();
  await signIn(page);
  const rows = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await oneChat(page, QUESTIONS[i % QUESTIONS.length]);
    rows.push(r);
    console.log(`run ${i + 1}: Send → chat page ${r.page.toFixed(0)} ms, → first text ${r.text.toFixed(0)} ms; follow-up → first text ${r.follow.toFixed(0)} ms`);
  }
  for (const [key, label] of [['page', 'first question: Send → chat page'], ['text', 'first question: Send → first text'],
    ['follow', 'follow-up: Send → first text']]) {
    const xs = rows.map((r) => r[key]);
    console.log(`${label.padEnd(36)} p50 ${median(xs).toFixed(0)} ms  p95 ${p95(xs).toFixed(0)} ms  (${xs.length} runs)`);
  }
} finally {
  await browser.close();
}
