// Own cards: a signed-in user brings in their own cards. Import a small
// folder of Markdown in the browser, edit a card, see its embedding arrive
// (the card becomes rankable: a chat over it cites it), export the selection
// and import it again (an update, not duplicates); delete with undo.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  adminDelete, adminGet, adminList, COLLECTIONS, launch, newContext, pageErrors, signIn, signInRest, until,
} from './support.mjs';

const TAG = `e2e-own-${Date.now()}`;
const WORD = 'glimmerwick'; // in no demo card: the chat below can only cite our card for it
let browser;
let dir;
before(async () => {
  browser = await launch();
  dir = mkdtempSync(path.join(tmpdir(), 'cardchat-import-'));
});
after(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeVault() {
  const vault = path.join(dir, 'vault');
  mkdirSync(path.join(vault, 'sub'), { recursive: true });
  writeFileSync(path.join(vault, 'lanterns.md'), `---\ntags: [${TAG}, light]\n---\n# Lanterns\n\nOil lanterns burn a wick soaked in paraffin.\n`);
  writeFileSync(path.join(vault, 'sub', 'candles.md'), `---\ntitle: Candles\ntags: [${TAG}]\n---\nA candle is wax around a cotton wick.\n`);
  writeFileSync(path.join(vault, 'readme.md'), `---\ntags: [${TAG}]\n---\nNotes about light at home before electricity.\n`);
  writeFileSync(path.join(vault, 'empty.md'), `---\ntags: [${TAG}]\n---\n# Nothing here\n`);
  writeFileSync(path.join(vault, 'photo.png'), 'not markdown');
  return vault;
}

async function ownCards(uid) {
  return (await adminList(COLLECTIONS.cards)).filter((c) => c.owner === uid && (c.tags ?? []).includes(TAG));
}

async function importPicked(page, testId, files) {
  await page.goto(new URL('/import', page.url()).href);
  await page.getByTestId(testId).setInputFiles(files);
  await page.getByTestId('import-counts').waitFor({ timeout: 30_000 });
  return page.getByTestId('import-counts').textContent();
}

/** 1. Import the folder: a preview with the empty file named, then the summary. */
async function importsTheFolder(page, uid) {
  const counts = await importPicked(page, 'import-folder', writeVault());
  assert.match(counts, /^3 new cards, 0 changed cards, 0 unchanged, 1 file with problems \(not imported\); 1 other file ignored\.$/);
  assert.match(await page.getByTestId('import-problems').textContent(), /empty\.md: body is missing or empty/);
  await page.getByTestId('import-go').click();
  await page.getByTestId('import-summary').filter({ hasText: 'created' }).waitFor({ timeout: 60_000 });
  assert.equal(await page.getByTestId('import-summary').textContent(), '3 created, 0 updated, 1 skipped: 1 with problems (listed below)');
  await page.getByTestId('import-embedded').filter({ hasText: /^embedded [\d,]+ \/ [\d,]+$/ }).waitFor({ timeout: 30_000 });
  const imported = await ownCards(uid);
  assert.deepEqual(imported.map((c) => c.title).sort(), ['Candles', 'Lanterns', 'readme']);
  for (const c of imported) assert.match(c.id, new RegExp(`^${uid}_.+-[0-9a-f]{16}$`), 'ids are derived per owner, in their namespace');
  return imported;
}

/** 2. Edit a card in the editor (the preview renders the Markdown), then its embedding follows. */
async function editsACard(page, uid, imported) {
  const lanterns = imported.find((c) => c.title === 'Lanterns');
  const before = await until('the imported card\'s embedding', () => adminGet(`${COLLECTIONS.card_embeddings}/${lanterns.id}`));
  assert.equal(before.owner, uid);
  await page.goto(new URL(`/?scope=mine&tag=${TAG}`, page.url()).href);
  await page.locator(`[data-testid=card][data-card-id="${lanterns.id}"] [data-testid=card-edit]`).click();
  await page.getByTestId('edit-body').fill(`A **${WORD}** is the braided wick of a storm lantern; trim the ${WORD} for a clean flame.`);
  assert.match(await page.getByTestId('edit-preview').innerHTML(), new RegExp(`<strong>${WORD}</strong>`));
  await page.getByTestId('edit-save').click();
  await page.getByTestId('card-page').waitFor({ timeout: 30_000 });
  const edited = await adminGet(`${COLLECTIONS.cards}/${lanterns.id}`);
  assert.match(edited.body, new RegExp(WORD));
  assert.ok(edited.updated > lanterns.updated && edited.created.getTime() === lanterns.created.getTime());
  await until('the edited card\'s new embedding', async () =>
    (await adminGet(`${COLLECTIONS.card_embeddings}/${lanterns.id}`))?.text_hash !== before.text_hash);
  return lanterns;
}

/** 3. Rankable: a chat over the imported cards cites the edited one. */
async function aChatCitesIt(page, lanterns) {
  await page.goto(new URL(`/?scope=mine&tag=${TAG}`, page.url()).href);
  await page.waitForFunction(() => /^3 cards shown/.test(document.querySelector('[data-testid=card-count]')?.textContent ?? ''), null, { timeout: 60_000 });
  await page.getByTestId('chat-with-cards').click();
  await page.waitForFunction(() => {
    const picker = /** @type {HTMLSelectElement | null} */ (document.querySelector('[data-testid=model-picker]'));
    return !picker?.disabled;
  }, null, { timeout: 30_000 });
  const offline = await page.locator('[data-testid=model-picker] option[data-offline=true]').first().getAttribute('value');
  await page.getByTestId('model-picker').selectOption(offline);
  await page.getByTestId('start-message').fill(`What is a ${WORD}?`);
  await page.getByTestId('start-submit').click();
  await page.waitForURL(/\/chat\/[^/]+$/, { timeout: 120_000 });
  await page.locator('[data-testid=message][data-role=assistant][data-phase=complete]').first().waitFor({ timeout: 120_000 });
  const cited = await page.locator('a.cite').evaluateAll((as) => as.map((a) => a.getAttribute('data-card-id')));
  assert.ok(cited.includes(lanterns.id), `the answer cites the edited card (cited: ${cited})`);
  const download = page.waitForEvent('download');
  await page.getByTestId('download-transcript').click();
  const transcript = readFileSync(await (await download).path(), 'utf8');
  assert.match(transcript, /\[\d+\] Lanterns/, 'the transcript resolves the citation to the card title');
}

/** 4. Export the selection as JSON, change one card in it, import it back: one update, no duplicates. */
async function exportsAndReimports(page, uid) {
  await page.goto(new URL(`/?scope=mine&tag=${TAG}`, page.url()).href);
  await page.waitForFunction(() => /^3 cards shown/.test(document.querySelector('[data-testid=card-count]')?.textContent ?? ''), null, { timeout: 60_000 });
  await page.getByTestId('select-all').click();
  const jsonDownload = page.waitForEvent('download');
  await page.getByTestId('export-json').click();
  const exported = JSON.parse(readFileSync(await (await jsonDownload).path(), 'utf8'));
  assert.deepEqual(exported.cards.map((c) => c.title), ['Candles', 'Lanterns', 'readme'], 'in the displayed order');
  exported.cards[0].body = 'A candle is wax around a wick; beeswax burns cleaner.';
  const back = path.join(dir, 'export.json');
  writeFileSync(back, JSON.stringify(exported));
  assert.equal(await importPicked(page, 'import-file', back), '0 new cards, 1 changed card, 2 unchanged.');
  await page.getByTestId('import-go').click();
  await page.getByTestId('import-summary').filter({ hasText: 'created' }).waitFor({ timeout: 60_000 });
  assert.equal(await page.getByTestId('import-summary').textContent(), '0 created, 1 updated, 2 skipped: 2 unchanged');
  const after = await ownCards(uid);
  assert.equal(after.length, 3, 'a re-import updates, never duplicates');
  assert.match(after.find((c) => c.title === 'Candles').body, /beeswax/);
  return after;
}

/** 5. Delete from the editor, undo from the toast (held under the pointer): the card is back under its id. */
async function deletesAndUndoes(page, after) {
  const candles = after.find((c) => c.title === 'Candles');
  await page.goto(new URL(`/card/${encodeURIComponent(candles.id)}/edit`, page.url()).href);
  await page.getByTestId('edit-delete').click();
  // The pointer on the toast stops its 6 s: the check below may take longer under load.
  await page.getByTestId('toast-action').hover();
  assert.equal(await adminGet(`${COLLECTIONS.cards}/${candles.id}`), null, 'deleted at once');
  await page.getByTestId('toast-action').click();
  await until('the undone card', () => adminGet(`${COLLECTIONS.cards}/${candles.id}`), 30_000);
}

test('own cards: import a folder, edit, embedding arrives and a chat cites it, export and re-import, delete and undo', async () => {
  const { uid } = await signInRest();
  const context = await newContext(browser);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page);
  try {
    const imported = await importsTheFolder(page, uid);
    const lanterns = await editsACard(page, uid, imported);
    await aChatCitesIt(page, lanterns);
    const after = await exportsAndReimports(page, uid);
    await deletesAndUndoes(page, after);
    assert.deepEqual(errors, []);
  } finally {
    for (const c of await ownCards(uid)) {
      await adminDelete(`${COLLECTIONS.cards}/${c.id}`);
      await adminDelete(`${COLLECTIONS.card_embeddings}/${c.id}`);
    }
    await context.close();
  }
});
