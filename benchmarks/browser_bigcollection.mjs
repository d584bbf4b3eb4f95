// The cards page at 10,000 and 100,000 cards, on a running stack
// (scripts/dev, or any with the env it prints; node benchmarks/browser_bigcollection.mjs).
// For each size in BENCH_SIZES (default 10000,100000): seeds that many cards
// for a user of their own as an admin, triggers paused; then BENCH_RUNS
// (default 3) fresh browser sessions each time, in the page's own clock,
// sign-in submit → the first card on screen, and → the count shown; counts
// the DOM nodes then and after scrolling 40 screens; deletes the cards.
// Goals: first screen ≤ 1.5 s after sign-in, DOM ≤ 3,000 nodes.
import {
  adminWriteMany, APP_URL, COLLECTIONS, ensureUser, FIRESTORE, launch, newContext, PROJECT, withTriggersPaused,
} from '../web/e2e/support.mjs';

const SIZES = (process.env.BENCH_SIZES || '10000,100000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS || 3);
// BENCH_TRACE=1: each run's spans (timing.ts) after sign-in, start → end in ms.
const TRACE = process.env.BENCH_TRACE === '1';
// BENCH_KEEP=1 leaves the cards for another run (which then seeds none of them again).
const KEEP = process.env.BENCH_KEEP === '1';
const SEED_IN_FLIGHT = Number(process.env.BENCH_SEED_IN_FLIGHT || 8);
const USER = { email: 'bench-big@cardchat.test', password: 'cardchat-bench-big' };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

const cardPath = (i) => `${COLLECTIONS.cards}/bench-big-${String(i).padStart(6, '0')}`;

/** Cards [from, n): the sizes grow, so each size adds only its new cards. */
async function seed(uid, from, n) {
  const at = new Date('2026-01-01T00:00:00Z');
  const writes = Array.from({ length: n - from }, (_, k) => from + k).map((i) => [cardPath(i), {
    title: `Bench note ${String(i).padStart(6, '0')}`,
    body: `Lantern log ${i}. The wick was trimmed at dusk; the glass was clean. Entry ${i % 97} of the keeper's book.`,
    owner: uid, visibility: 'private', viewers: [], tags: ['bench', `shelf-${i % 20}`], created: at, updated: at,
  }]);
  const t0 = Date.now();
  await withTriggersPaused(() => adminWriteMany(writes, { inFlight: SEED_IN_FLIGHT }));
  return Date.now() - t0;
}

/** The user's cards left by a run with BENCH_KEEP=1 (seeded from 0 on, in order), by an aggregation query. */
async function alreadySeeded(uid) {
  const root = `projects/${PROJECT}/databases/(default)/documents`;
  const structuredQuery = {
    from: [{ collectionId: COLLECTIONS.cards }],
    where: { fieldFilter: { field: { fieldPath: 'owner' }, op: 'EQUAL', value: { stringValue: uid } } },
  };
  const res = await fetch(`http://${FIRESTORE}/v1/${root}:runAggregationQuery`, {
    method: 'POST',
    headers: { Authorization: 'Bearer owner', 'content-type': 'application/json' },
    body: JSON.stringify({ structuredAggregationQuery: { structuredQuery, aggregations: [{ alias: 'n', count: {} }] } }),
  });
  if (!res.ok) throw new Error(`counting the seeded cards: ${res.status} ${await res.text()}`);
  const [row] = await res.json();
  return Number(row.result.aggregateFields.n.integerValue);
}

function domNodes() {
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
  let n = 0;
  while (walker.nextNode()) n++;
  return n;
}

/** In the page: the time of the first frame with a card, and with the count shown. */
function watchFirstScreen() {
  const w = /** @type {any} */ (window);
  w.__t = {};
  const tick = () => {
    if (!w.__t.card && document.querySelector('[data-testid=card]')) w.__t.card = performance.now();
    if (!w.__t.count && /^\d+ cards? shown/.test(document.querySelector('[data-testid=card-count]')?.textContent ?? '')) {
      w.__t.count = performance.now();
    }
    if (!w.__t.card || !w.__t.count) requestAnimationFrame(tick);
  };
  document.addEventListener('submit', () => { w.__t.submit = performance.now(); requestAnimationFrame(tick); }, true);
}

async function oneRun(browser) {
  const context = await newContext(browser);
  const page = await context.newPage();
  await page.addInitScript(watchFirstScreen);
  await page.goto(`${APP_URL}/?scope=yours`);
  await page.locator('#signin-email').fill(USER.email);
  await page.locator('#signin-password').fill(USER.password);
  await page.getByTestId('signin-submit').click();
  await page.waitForFunction(() => { const t = /** @type {any} */ (window).__t; return t.card && t.count; }, null, { timeout: 120_000 });
  const t = await page.evaluate(() => /** @type {any} */ (window).__t);
  if (TRACE) await page.waitForTimeout(3000); // the spans that end after the first screen
  const spans = await page.evaluate((submit) => performance.getEntries()
    .filter((e) => e.name.startsWith('cardchat:'))
    .map((e) => ({ name: e.name.slice(9), start: Math.round(e.startTime - submit), end: Math.round(e.startTime + e.duration - submit) })), t.submit);
  const first = await page.evaluate(domNodes);
  for (let i = 0; i < 40; i++) {
    await page.evaluate(() => window.scrollBy(0, window.innerHeight));
    await page.waitForTimeout(100);
  }
  await page.waitForTimeout(1000);
  const scrolled = await page.evaluate(domNodes);
  const loaded = await page.locator('[data-testid=card]').last().getAttribute('data-card-id');
  await context.close();
  return { card: t.card - t.submit, count: t.count - t.submit, first, scrolled, loaded, spans };
}

const browser = await launch();
try {
  const { uid } = await ensureUser(USER.email, USER.password);
  let seeded = await alreadySeeded(uid);
  for (const n of SIZES) {
    let seedMs = await seed(uid, Math.min(seeded, n), n);
    // A kept run stopped midway may have left gaps below its count: write them all again.
    if (await alreadySeeded(uid) < n) seedMs += await seed(uid, 0, n);
    seeded = Math.max(seeded, n);
    const runs = [];
    for (let r = 0; r < RUNS; r++) {
      const run = await oneRun(browser);
      runs.push(run);
      if (TRACE) {
        console.log(`run ${r + 1}: first card ${Math.round(run.card)} ms, count ${Math.round(run.count)} ms`);
        for (const sp of run.spans) console.log(`  ${sp.name.padEnd(22)} ${String(sp.start).padStart(6)} → ${String(sp.end).padStart(6)}`);
      }
    }
    console.log(`cards page at ${n.toLocaleString('en')} cards (seeded in ${(seedMs / 1000).toFixed(1)} s, ${RUNS} runs, median):`);
    console.log(`  sign-in → first card on screen: ${Math.round(median(runs.map((r) => r.card)))} ms`
      + ` (runs: ${runs.map((r) => Math.round(r.card)).join(', ')})`);
    console.log(`  sign-in → count shown: ${Math.round(median(runs.map((r) => r.count)))} ms`);
    console.log(`  DOM nodes: first screen ${median(runs.map((r) => r.first))}, after 40 screens of scrolling ${median(runs.map((r) => r.scrolled))}`
      + ` (last card in the DOM: ${runs[0].loaded})`);
  }
  if (!KEEP) await withTriggersPaused(() => adminWriteMany(Array.from({ length: seeded }, (_, i) => [cardPath(i), null]), { inFlight: SEED_IN_FLIGHT }));
} finally {
  await browser.close();
}
