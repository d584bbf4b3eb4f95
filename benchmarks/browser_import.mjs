// Browser import of BENCH_FILES (default 5,000) Markdown files, on a running
// scripts/dev stack (export the env it prints, then:
// node benchmarks/browser_import.mjs). As the demo user: picks a generated
// folder on the Import page and times, in the page's clock, the pick → the
// preview (read, parse, plan against the owner's cards), and "Import" → the
// summary (the batched writes). Then how far the embeddings are after
// BENCH_EMBED_WAIT_S (default 30). The cards stay (re-run: the second import
// finds them unchanged; or restart scripts/dev).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { APP_URL, launch, newContext, signIn } from '../web/e2e/support.mjs';

const FILES = Number(process.env.BENCH_FILES || 5000);
const EMBED_WAIT_S = Number(process.env.BENCH_EMBED_WAIT_S || 30);
const WORDS = 'lantern wick candle oil flame glass brass wax smoke soot light dark night reading room window'.split(' ');

function vault() {
  const dir = mkdtempSync(path.join(tmpdir(), 'cardchat-bench-import-'));
  for (let i = 0; i < FILES; i++) {
    const sub = path.join(dir, 'vault', `folder-${i % 50}`);
    mkdirSync(sub, { recursive: true });
    const body = Array.from({ length: 120 }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(' ');
    writeFileSync(path.join(sub, `note-${i}.md`), `---\ntags: [bench, t${i % 20}]\n---\n# Note ${i}\n\n${body}.\n`);
  }
  return dir;
}

const dir = vault();
const browser = await launch();
try {
  const page = await (await newContext(browser)).newPage();
  await signIn(page);
  await page.goto(`${APP_URL}/import`);
  await page.evaluate(() => { window.__t = { pick: performance.now() }; });
  await page.getByTestId('import-folder').setInputFiles(path.join(dir, 'vault'));
  await page.getByTestId('import-counts').waitFor({ timeout: 300_000 });
  const previewMs = await page.evaluate(() => performance.now() - window.__t.pick);
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
  await page.waitForTimeout(EMBED_WAIT_S * 1000);
  const embedded = await page.getByTestId('import-embedded').textContent();
  console.log(`browser import of ${FILES.toLocaleString('en')} files: ${counts}`);
  console.log(`  pick → preview: ${Math.round(previewMs).toLocaleString('en')} ms`);
  console.log(`  Import → summary: ${Math.round(writeMs).toLocaleString('en')} ms (${result})`);
  console.log(`  ${EMBED_WAIT_S} s later: ${embedded}`);
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
