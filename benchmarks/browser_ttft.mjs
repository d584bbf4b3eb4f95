// Send → first visible answer text in the browser, on a running scripts/dev
// stack (export the env it prints, then: node benchmarks/browser_ttft.mjs).
// As the demo user, starts BENCH_RUNS (default 5) offline chats over every
// card the cards view shows and asks one follow-up in each; times, in the
// page's own clock, Send (the click, the Enter) → the chat page, and Send →
// the first frame whose assistant message body has text. Leaves the chats
// (delete them in the app, or restart scripts/dev).
import { APP_URL, launch, newContext, signIn } from '../web/e2e/support.mjs';
import { askFirst, askFollowUp } from './send_and_watch.mjs';

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
  const first = await askFirst(page, question);
  const follow = await askFollowUp(page, followUp);
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
