// A JSON "deck" that names one of the importer's private cards with
// visibility "public" must not publish it unseen: the preview lists the card
// and its change, an import left unconfirmed keeps the card private (taking
// its other changes), and only the ticked box publishes it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { adminDelete, adminGet, adminSet, COLLECTIONS, launch, newContext, pageErrors, signIn, signInRest, until } from './support.mjs';

let browser;
let dir;
before(async () => {
  browser = await launch();
  dir = mkdtempSync(path.join(tmpdir(), 'cardchat-widen-'));
});
after(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeDeck(id, body) {
  const file = path.join(dir, `deck-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify({ cards: [{ id, visibility: 'public', body }] }));
  return file;
}

async function preview(page, file) {
  await page.goto(new URL('/import', page.url()).href);
  await page.getByTestId('import-file').setInputFiles(file);
  await page.getByTestId('import-counts').waitFor({ timeout: 30_000 });
}

async function importAndWait(page) {
  await page.getByTestId('import-go').click();
  await page.getByTestId('import-summary').filter({ hasText: 'created' }).waitFor({ timeout: 60_000 });
}

/** 1. Unconfirmed: the card is listed with its change, and the import keeps it private. */
async function unconfirmedKeepsItPrivate(page, id) {
  await preview(page, writeDeck(id, 'Edited by the deck.'));
  assert.match(await page.getByTestId('import-widening').textContent(), /more people read 1 card of yours.*visibility private → public/);
  assert.equal(await page.getByTestId('import-widen').isChecked(), false);
  await importAndWait(page);
  const card = await until('the deck\'s edit', async () => {
    const c = await adminGet(`${COLLECTIONS.cards}/${id}`);
    return c?.body === 'Edited by the deck.' && c;
  }, 30_000);
  assert.equal(card.visibility, 'private', 'not published without the owner\'s confirmation');
}

/** 2. Nothing else to change: nothing to import until the box is ticked; ticked, the card is published. */
async function confirmedPublishesIt(page, id) {
  await preview(page, writeDeck(id, 'Edited by the deck.'));
  assert.equal(await page.getByTestId('import-go').textContent(), 'Import 0 cards');
  assert.equal(await page.getByTestId('import-go').isDisabled(), true);
  await page.getByTestId('import-widen').check();
  assert.equal(await page.getByTestId('import-go').textContent(), 'Import 1 card');
  await importAndWait(page);
  await until('the card published', async () => (await adminGet(`${COLLECTIONS.cards}/${id}`))?.visibility === 'public', 30_000);
}

test('import: a deck that would publish a private card of the importer\'s asks first', async () => {
  const { uid } = await signInRest();
  const id = `${uid}_widen-${Date.now()}`;
  await adminSet(`${COLLECTIONS.cards}/${id}`, {
    owner: uid, title: 'Private note', body: 'Only mine.', visibility: 'private', viewers: [], tags: [],
    created: new Date(), updated: new Date(),
  });
  const context = await newContext(browser);
  const page = await context.newPage();
  const errors = pageErrors(page);
  await signIn(page);
  try {
    await unconfirmedKeepsItPrivate(page, id);
    await confirmedPublishesIt(page, id);
    assert.deepEqual(errors, []);
  } finally {
    await adminDelete(`${COLLECTIONS.cards}/${id}`);
    await adminDelete(`${COLLECTIONS.card_embeddings}/${id}`);
    await context.close();
  }
});
