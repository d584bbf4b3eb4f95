// Browser import of BENCH_FILES (default 5,000) Markdown files, on a running
// scripts/dev stack (export the env it prints, then:
// node benchmarks/browser_import.mjs). As the demo user: picks a generated
// folder on the Import page and times, in the page's clock, the pick → the
// preview (read, parse, plan against the owner's cards), and "Import" → the
// summary (the batched writes). Then how far the embeddings are after
// BENCH_EMBED_WAIT_S (default 30). Each run's files are named after the run
// (BENCH_RUN, default the time), so every run creates its cards afresh; they
// stay. BENCH_TRIGGERS=off pauses the Functions emulator's background
// triggers during the import (the hub at 4400 + CARDCHAT_PORT_OFFSET), to
// separate the emulator's embedCard cost from the import's own.
// It prints the steps the page measures (files read, parsed, looked up, each
// batch written: importpage.ts `phases`), the CPU seconds the emulators, the
// functions and the browser spent in the preview and in the writes, and the
// load average at the start and the end.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { APP_URL, launch, newContext, signIn } from '../web/e2e/support.mjs';
import { cpuByRole, cpuSpent } from './proc_cpu.mjs';

const FILES = Number(process.env.BENCH_FILES || 5000);
const EMBED_WAIT_S = Number(process.env.BENCH_EMBED_WAIT_S || 30);
const RUN = process.env.BENCH_RUN || String(Date.now());
const PAUSE = process.env.BENCH_TRIGGERS === 'off';
const HUB = `http://127.0.0.1:${4400 + Number(process.env.CARDCHAT_PORT_OFFSET || 0)}/functions`;
const WORDS = 'lantern wick candle oil flame glass brass wax smoke soot light dark night reading room window'.split(' ');

function vault() {
  const dir = mkdtempSync(path.join(tmpdir(), 'cardchat-bench-import-'));
  for (let i = 0; i < FILES; i++) {
    const sub = path.join(dir, 'vault', `folder-${i % 50}`);
    mkdirSync(sub, { recursive: true });
    const body = Array.from({ length: 120 }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(' ');
    writeFileSync(path.join(sub, `note-${RUN}-${i}.md`), `---\ntags: [bench, t${i % 20}]\n---\n# Note ${i}\n\n${body}.\n`);
  }
  return dir;
}

async function triggers(on) {
  const res = await fetch(`${HUB}/${on ? 'enable' : 'disable'}BackgroundTriggers`, { method: 'PUT' });
  if (!res.ok) throw new Error(`the emulator hub answered ${res.status}`);
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(', ');
/** The page's import measures (importpage.ts), in order: "parsed 1,234 ms" … */
const steps = (page) => page.evaluate(() => performance.getEntriesByType('measure')
  .filter((m) => m.name.startsWith('import: ')).map((m) => [m.name.slice(8), m.duration]));

const dir = vault();
const loadBefore = load();
const browser = await launch();
if (PAUSE) await triggers(false);
try {
  const page = await (await newContext(browser)).newPage();
  await signIn(page);
  await page.goto(`${APP_URL}/import`);
  await page.evaluate(() => {
    // When the preview first says it compares (reading and parsing done): the plan's look-ups follow.
    window.__t = { pick: performance.now() };
    new MutationObserver(() => {
      if (!window.__t.compare && /^Comparing/.test(document.querySelector('[data-testid=import-preview]')?.textContent ?? '')) {
        window.__t.compare = performance.now();
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const cpu = [cpuByRole()];
  await page.getByTestId('import-folder').setInputFiles(path.join(dir, 'vault'));
  await page.getByTestId('import-counts').waitFor({ timeout: 300_000 });
  const [previewMs, readMs] = await page.evaluate(() => [performance.now() - window.__t.pick, (window.__t.compare ?? NaN) - window.__t.pick]);
  cpu.push(cpuByRole());
  const counts = await page.getByTestId('import-counts').textContent();
  const go = page.getByTestId('import-go');
  let writeMs = 0;
  let result = 'nothing to write';
  if (await go.isEnabled()) {
    await page.evaluate(() => { window.__t.go = performance.now(); });
    await go.click();
    await page.getByTestId('import-summary').filter({ hasText: 'created' }).waitFor({ timeout: 600_000 });
    writeMs = await page.evaluate(() => performance.now() - window.__t.go);
    result = await page.getByTestId('import-summary').textContent();
  }
  cpu.push(cpuByRole());
  const measured = await steps(page);
  if (PAUSE) await triggers(true);
  await page.waitForTimeout(EMBED_WAIT_S * 1000);
  const embedded = await page.getByTestId('import-embedded').textContent();
  cpu.push(cpuByRole());
  console.log(`browser import of ${FILES.toLocaleString('en')} files (triggers ${PAUSE ? 'paused' : 'on'}): ${counts}`);
  const ms = (x) => `${Math.round(x).toLocaleString('en')} ms`;
  console.log(`  pick → preview: ${ms(previewMs)}${Number.isNaN(readMs) ? '' : ` (files read and parsed at ${ms(readMs)}, then the look-ups)`}`);
  console.log(`  Import → summary: ${ms(writeMs)} (${result})`);
  console.log(`  total (pick → preview + Import → summary): ${ms(previewMs + writeMs)}`);
  console.log(`  steps (each from the previous one's end): ${measured.map(([name, d]) => `${name} ${ms(d)}`).join('; ')}`);
  console.log(`  CPU in the preview: ${cpuSpent(cpu[0], cpu[1])}`);
  console.log(`  CPU in the writes: ${cpuSpent(cpu[1], cpu[2])}`);
  console.log(`  load average (1, 5, 15 min): ${loadBefore} at the start, ${load()} at the end`);
  console.log(`  ${EMBED_WAIT_S} s later: ${embedded}; CPU meanwhile: ${cpuSpent(cpu[2], cpu[3])}`);
} finally {
  if (PAUSE) await triggers(true);
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
