// PDFs on the Import page, through the app's own pdfjs build in the browser:
// a PDF with an outline becomes a card a section, titled with its page; a
// scan with no text layer is reported and not imported. pdfjs and its worker
// are fetched only once a PDF is picked, from the app's own origin, under
// its CSP (tests/fixtures/pdf/make_pdfs.py writes the fixtures).
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import {
  adminDelete, adminList, APP_URL, AUTH, COLLECTIONS, ensureUser, FIRESTORE, FUNCTIONS, launch, newContext, pageErrors, signIn, until,
} from './support.mjs';

const FIXTURES = fileURLToPath(new URL('../../tests/fixtures/pdf/', import.meta.url));
const EMAIL = `e2e-pdf-${Date.now()}@cardchat.test`;
const PASSWORD = 'e2e-pdf-password';
let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Every request the context makes and every CSP violation its pages report. */
async function watch(context) {
  /** @type {{ requests: string[], violations: string[] }} */
  const seen = { requests: [], violations: [] };
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`Content Security Policy: ${e.violatedDirective} blocked ${e.blockedURI || '(inline)'}`);
    });
  });
  context.on('request', (r) => seen.requests.push(r.url()));
  context.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) seen.violations.push(m.text());
  });
  return seen;
}

/** 1. The page opens without pdfjs; picking the PDFs loads it and its worker from our origin. */
async function previewsThePdfs(page, seen) {
  await page.goto(`${APP_URL}/import`);
  await page.getByTestId('import-file').waitFor();
  assert.deepEqual(seen.requests.filter((u) => /pdf/i.test(u)), [], 'no pdfjs before a PDF is picked');
  await page.getByTestId('import-file').setInputFiles([`${FIXTURES}Report.pdf`, `${FIXTURES}Scanned.pdf`]);
  await page.getByTestId('import-counts').waitFor({ timeout: 60_000 });
  assert.equal(await page.getByTestId('import-counts').textContent(),
    '4 new cards, 0 changed cards, 0 unchanged, 1 file with problems (not imported).');
  assert.match(await page.getByTestId('import-problems').textContent(), /^Scanned\.pdf: no text layer: nothing imported/);
  const pdfjs = seen.requests.filter((u) => /pdf/i.test(u));
  const paths = pdfjs.map((u) => new URL(u).pathname);
  assert.ok(paths.some((p) => /\/pdf\.worker[^/]*\.mjs$/.test(p)), `the worker was fetched: ${pdfjs.join(', ')}`);
  assert.ok(paths.some((p) => /\/pdf-[^/]*\.js$/.test(p)), `pdfjs is a chunk of its own, fetched now: ${pdfjs.join(', ')}`);
  for (const u of pdfjs) assert.equal(new URL(u).origin, new URL(APP_URL).origin, `pdfjs comes from the app's origin: ${u}`);
}

/** 2. The import writes a card a section, its title naming the file, the heading and the page. */
async function importsTheSections(page, uid) {
  await page.getByTestId('import-go').click();
  await page.getByTestId('import-summary').filter({ hasText: 'created' }).waitFor({ timeout: 60_000 });
  const cards = await until('the PDF\'s cards', async () => {
    const own = (await adminList(COLLECTIONS.cards)).filter((c) => c.owner === uid);
    return own.length === 4 && own;
  }, 30_000);
  assert.deepEqual(cards.map((c) => c.title).sort(), [
    'Report.pdf — Gauges (p. 4)', 'Report.pdf — Introduction (p. 2)', 'Report.pdf — Method (p. 3)', 'Report.pdf — p. 1',
  ]);
  const intro = cards.find((c) => c.title === 'Report.pdf — Introduction (p. 2)');
  assert.match(intro.body, /This report looks at the harbour tides\./);
  return cards;
}

test('import: PDFs become a card a section (or page); a scan is reported, not imported', async () => {
  const { uid } = await ensureUser(EMAIL, PASSWORD);
  const context = await newContext(browser);
  const seen = await watch(context);
  const page = await context.newPage();
  const errors = pageErrors(page);
  let cards = [];
  try {
    await signIn(page, EMAIL, PASSWORD);
    await previewsThePdfs(page, seen);
    cards = await importsTheSections(page, uid);
    assert.deepEqual(seen.violations, [], 'no CSP violation');
    const hosts = [AUTH, FIRESTORE, ...(FUNCTIONS ? [FUNCTIONS] : [])];
    const ours = new Set([new URL(APP_URL).origin, ...hosts.map((h) => new URL(`http://${h}`).origin)]);
    const elsewhere = seen.requests.filter((u) => !/^(data|blob):/.test(u) && !ours.has(new URL(u).origin));
    assert.deepEqual(elsewhere, [], 'the browser fetches from no other origin');
    assert.deepEqual(errors, []);
  } finally {
    for (const c of cards) {
      await adminDelete(`${COLLECTIONS.cards}/${c.id}`);
      await adminDelete(`${COLLECTIONS.card_embeddings}/${c.id}`);
    }
    await context.close();
  }
});
