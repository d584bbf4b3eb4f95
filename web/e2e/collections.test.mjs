// Saved collections and the search of one's chats, in the browser.
// 1. The Cards page saves its filter as a collection with instructions; the
//    collection's page starts a chat in it; the chat's header links back to
//    it; its chats are listed there; the instructions reach the hidden
//    background and never the page.
// 2. Its owner edits it (name, instructions, filter) and deletes it; the chat
//    made from it then says the collection is gone and offers the filter it
//    was made from; the collection's page is not found.
// 3. The chat sidebar searches the reader's chats and those shared with them:
//    each hit shows its passage and opens the chat at that message; another
//    user's unshared chat is never found.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  adminGet, adminSet, APP_URL, callFunction, COLLECTIONS, DESKTOP, ensureUser, launch, newContext, pageErrors,
  pickOfflineModel, screenshot, until,
} from './support.mjs';
import { backgroundText, completeMessage } from './chatsetup.mjs';

const INSTRUCTIONS = 'Answer like a harbour master and sign every answer with the word Anchorage.';
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** A new user allowed to use the AI, with cards of their own. */
async function user(name, stamp, cards) {
  const email = `${name}-${stamp}@cardchat.test`;
  const { uid, idToken } = await ensureUser(email, 'collections-pass');
  await adminSet(`${COLLECTIONS.users}/${uid}`, { may_use_ai: true, admin: false });
  const now = new Date();
  for (const [local, title, body, tags] of cards) {
    await adminSet(`${COLLECTIONS.cards}/${uid}_${local}`, { title, body, owner: uid, visibility: 'private', viewers: [], tags, created: now, updated: now });
  }
  return { uid, idToken, email };
}

async function signInAs(page, email) {
  await page.goto(`${APP_URL}/`);
  await page.locator('#signin-email').fill(email);
  await page.locator('#signin-password').fill('collections-pass');
  await page.getByTestId('signin-submit').click();
  await page.getByTestId('user-email').waitFor({ timeout: 30_000 });
}

/** The Cards page filtered on a tag, saved as a collection: the collection's page opens. */
async function savesTheFilter(page, me) {
  await page.goto(`${APP_URL}/?tag=sea`);
  await page.getByTestId('save-collection').click();
  await page.getByTestId('collection-name').fill('Sea notes');
  await page.getByTestId('collection-instructions').fill(INSTRUCTIONS);
  await page.getByTestId('collection-save').click();
  await page.waitForURL(/\/collections\/[^/]+$/, { timeout: 30_000 });
  const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  const saved = await adminGet(`${COLLECTIONS.collections}/${id}`);
  assert.equal(saved.owner, me.uid);
  assert.deepEqual(saved.query, { scope: 'mine', tag: 'sea' });
  assert.equal(saved.instructions, INSTRUCTIONS);
  await page.getByTestId('collection-title').waitFor();
  return id;
}

/** "New chat in this collection": the chat is made from the collection's id, its instructions only in the background. */
async function chatsInTheCollection(page, collectionId) {
  await page.getByTestId('new-chat-in-collection').click();
  await pickOfflineModel(page);
  await page.getByTestId('start-message').fill('When is high tide at the harbour?');
  const sent = page.waitForRequest((r) => r.url().endsWith('/createChat') && r.method() === 'POST', { timeout: 30_000 });
  await page.getByTestId('start-submit').click();
  assert.equal((await sent).postDataJSON().data.collection_id, collectionId);
  await page.waitForURL(/\/chat\/[^/]+$/, { timeout: 120_000 });
  const chatId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  await completeMessage(chatId);
  await page.getByTestId('chat-collection-link').waitFor({ timeout: 30_000 });
  assert.ok((await backgroundText(chatId)).includes(INSTRUCTIONS), 'the instructions are in the hidden background');
  assert.ok(!(await page.locator('body').innerText()).includes(INSTRUCTIONS), 'the chat page never shows them');
  return chatId;
}

/** The header's link goes back to the collection, which lists the chat; the Collections list holds it. */
async function backToTheCollection(page, chatId) {
  await page.getByTestId('chat-collection-link').click();
  await page.getByTestId('collection-title').waitFor({ timeout: 30_000 });
  await page.locator(`[data-testid=collection-chat][href="/chat/${chatId}"]`).waitFor({ timeout: 30_000 });
  await page.getByTestId('nav-collections').click();
  await page.getByTestId('collection-item').filter({ hasText: 'Sea notes' }).waitFor({ timeout: 30_000 });
}

test('collections: the Cards page saves its filter as a collection, a chat in it links back and keeps its instructions hidden', async () => {
  const stamp = Date.now();
  const context = await newContext(browser, DESKTOP);
  const page = await context.newPage();
  const errors = pageErrors(page);
  const me = await user('saver', stamp, [
    ['tides', 'Tides', 'High tide at the harbour comes at six in the morning.', ['sea']],
    ['bread', 'Bread', 'Sourdough rises overnight.', ['kitchen']],
  ]);
  await signInAs(page, me.email);
  const collectionId = await savesTheFilter(page, me);
  const chatId = await chatsInTheCollection(page, collectionId);
  await screenshot(page, 'collection-chat-desktop.png');
  await backToTheCollection(page, chatId);
  assert.deepEqual(errors, []);
  await context.close();
});

/** From the chat's header, "New chat in this collection" opens the start dialog on the collection. */
async function startsAgainFromTheChat(page, chatId) {
  await page.goto(`${APP_URL}/chat/${chatId}`);
  await page.getByTestId('chat-collection-link').waitFor({ timeout: 30_000 });
  await page.getByTestId('chat-origin').getByTestId('new-chat-in-collection').click();
  assert.match(await page.getByTestId('start-chat-dialog').innerText(), /New chat in “Sea notes”/);
  await page.getByTestId('start-cancel').click();
}

/** Edit: name, instructions and the filter's tag change, live on the page; owner and created are kept. */
async function editsTheCollection(page, collectionId) {
  const before = await adminGet(`${COLLECTIONS.collections}/${collectionId}`);
  await page.goto(`${APP_URL}/collections/${collectionId}`);
  await page.getByTestId('edit-collection').click();
  const dialog = page.getByTestId('edit-collection-dialog');
  assert.equal(await dialog.getByTestId('collection-name').inputValue(), 'Sea notes');
  assert.equal(await dialog.getByTestId('collection-tag').inputValue(), 'sea');
  await dialog.getByTestId('collection-name').fill('Harbour notes');
  await dialog.getByTestId('collection-instructions').fill('Answer in one sentence.');
  await dialog.getByTestId('collection-tag').fill('harbour');
  await dialog.getByTestId('collection-save').click();
  await page.getByTestId('collection-title').filter({ hasText: 'Harbour notes' }).waitFor({ timeout: 30_000 });
  assert.match(await page.getByTestId('collection-described').innerText(), /tag “harbour”/);
  // the page shows the write before the server has it (latency compensation): wait for the store
  const after = await until('the edit in the store', async () => {
    const d = await adminGet(`${COLLECTIONS.collections}/${collectionId}`);
    return d?.name === 'Harbour notes' ? d : null;
  }, 30_000);
  assert.deepEqual([after.name, after.instructions, after.query], ['Harbour notes', 'Answer in one sentence.', { scope: 'mine', tag: 'harbour' }]);
  assert.deepEqual([after.owner, after.created], [before.owner, before.created]);
}

/** Delete: confirmed, gone from the store and the list. */
async function deletesTheCollection(page, collectionId) {
  await page.getByTestId('delete-collection').click();
  await page.getByTestId('delete-collection-confirm').click();
  await page.waitForURL((url) => url.pathname === '/collections', { timeout: 30_000 });
  await page.getByTestId('no-collections').waitFor({ timeout: 30_000 });
  await until('the deletion in the store', async () => (await adminGet(`${COLLECTIONS.collections}/${collectionId}`)) === null, 30_000);
}

/** The chat stays: its header says the collection was deleted and offers the filter it was made from. */
async function theChatOutlivesIt(page, chatId, collectionId) {
  await page.goto(`${APP_URL}/chat/${chatId}`);
  await page.getByTestId('chat-collection-deleted').waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('chat-collection-link').count(), 0);
  assert.equal(await page.getByTestId('chat-filter-link').getAttribute('href'), '/?tag=sea');
  await page.getByTestId('chat-origin').getByTestId('new-chat-in-collection').click();
  await page.getByTestId('start-chat-dialog').waitFor();
  await page.getByTestId('start-cancel').click();
  await page.goto(`${APP_URL}/collections/${collectionId}`);
  await page.getByTestId('collection-gone').waitFor({ timeout: 30_000 });
}

test('collections: the owner edits a collection and deletes it; a chat made from it says so and keeps its filter', async () => {
  const stamp = Date.now();
  const context = await newContext(browser, DESKTOP);
  const page = await context.newPage();
  const errors = pageErrors(page);
  const me = await user('editor', stamp, [
    ['tides', 'Tides', 'High tide at the harbour comes at six in the morning.', ['sea', 'harbour']],
  ]);
  await signInAs(page, me.email);
  const collectionId = await savesTheFilter(page, me);
  const { chat_id: chatId } = await callFunction('createChat', {
    collection_id: collectionId, initial_message: 'When is high tide?', model: 'offline-extractive',
  }, me.idToken);
  await completeMessage(chatId);
  await startsAgainFromTheChat(page, chatId);
  await editsTheCollection(page, collectionId);
  await deletesTheCollection(page, collectionId);
  await theChatOutlivesIt(page, chatId, collectionId);
  assert.deepEqual(errors, []);
  await context.close();
});

/** A chat answered and in its owner's search index (the index follows the answer's completion). */
async function indexedChat(owner, cardLocal, question) {
  const { chat_id: chatId } = await callFunction('createChat', {
    card_ids: [`${owner.uid}_${cardLocal}`], initial_message: question, model: 'offline-extractive',
  }, owner.idToken);
  await completeMessage(chatId);
  await until('the chat in its owner\'s search index', async () => JSON.stringify(await adminGet(`${COLLECTIONS.chat_search}/${owner.uid}`) ?? {}).includes(chatId));
  return chatId;
}

async function search(page, text) {
  await page.getByTestId('chat-search').fill(text);
  await page.getByTestId('chat-search').press('Enter');
}

test('search: the chat sidebar finds own and shared chats by their words and opens a hit at its message', async () => {
  const stamp = Date.now();
  const context = await newContext(browser, DESKTOP);
  const page = await context.newPage();
  const errors = pageErrors(page);
  const me = await user('searcher', stamp, [['lens', 'Lens', 'The lighthouse lens was ground in Paris from crown glass.', []]]);
  const friend = await user('friend', stamp, [['bell', 'Bell', 'The fog bell of the pier rings every quarter minute.', []]]);
  const stranger = await user('stranger', stamp, [['lens', 'Lens', 'The quarry lens was ground from crown glass too.', []]]);
  const mine = await indexedChat(me, 'lens', 'Where was the lighthouse lens ground?');
  const theirs = await indexedChat(friend, 'bell', 'How often does the fog bell ring?');
  await callFunction('shareChat', { chat_id: theirs, add: [me.email] }, friend.idToken);
  await indexedChat(stranger, 'lens', 'What was the quarry lens ground from?');
  await signInAs(page, me.email);
  await page.goto(`${APP_URL}/chat/${mine}`);
  await search(page, 'crown glass');
  const hits = page.getByTestId('chat-search-result');
  await hits.first().waitFor({ timeout: 30_000 });
  assert.deepEqual(new Set(await hits.evaluateAll((as) => as.map((a) => a.getAttribute('data-chat-id')))), new Set([mine]));
  assert.match(await page.getByTestId('chat-search-passage').first().innerHTML(), /<mark>crown<\/mark>/i);
  await search(page, 'fog bell');
  const hit = page.locator(`[data-testid=chat-search-result][data-chat-id="${theirs}"][href*="?m="]`).first();
  assert.match(await hit.innerText(), /shared with you/);
  await hit.click();
  await page.waitForURL((url) => url.pathname === `/chat/${theirs}` && url.searchParams.has('m'), { timeout: 30_000 });
  const at = new URL(page.url()).searchParams.get('m');
  await page.locator(`[data-testid=message][data-index="${at}"].search-hit`).waitFor({ timeout: 30_000 });
  await screenshot(page, 'chat-search-desktop.png');
  assert.deepEqual(errors, []);
  await context.close();
});
