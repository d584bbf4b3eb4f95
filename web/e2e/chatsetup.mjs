// Setup shared by the browser tests of a chat: an answered chat made through
// createChat (over the demo user's cards, or cards a test writes), the chat's
// hidden background read as an admin, and publishing it.
import {
  adminGet, adminList, adminSet, callFunction, COLLECTIONS, FIRESTORE, PROJECT, signInRest, until,
} from './support.mjs';

export const ANSWER_TIMEOUT = 120_000;

/** Message `index` of `chatId` once complete (1: the first answer), as stored. */
export function completeMessage(chatId, index = 1, timeout = ANSWER_TIMEOUT) {
  return until(`message ${index} of ${chatId} to complete`, async () => {
    const m = await adminGet(`${COLLECTIONS.chat_messages}/${chatId}-${String(index).padStart(4, '0')}`);
    return m?.status === 'complete' ? m : null;
  }, timeout, 300);
}

/** Writes cards of `owner`'s as an admin: [id, title, body, visibility?] each. */
export async function writeCards(owner, cards) {
  const now = new Date();
  for (const [id, title, body, visibility = 'private'] of cards) {
    await adminSet(`${COLLECTIONS.cards}/${id}`, { title, body, owner, visibility, viewers: [], tags: [], created: now, updated: now });
  }
}

/** A chat of the caller's over `cardIds`, asked `question` of the offline answerer; its id once the answer is complete. */
export async function answeredChat(idToken, cardIds, question) {
  const { chat_id: chatId } = await callFunction('createChat', {
    card_ids: cardIds, initial_message: question, model: 'offline-extractive',
  }, idToken);
  await completeMessage(chatId);
  return chatId;
}

/**
 * The demo user's chat over some of their own cards on commits (`pick`
 * chooses them), asked `question` of the offline model; returned at once, the
 * answer still to come.
 */
export async function demoChatOnCommits(pick, question) {
  const { uid, idToken } = await signInRest();
  const own = (await adminList(COLLECTIONS.cards)).filter((c) => c.owner === uid && /commit/i.test(`${c.title}\n${c.body}`));
  const chosen = pick(own);
  const offline = (await callFunction('listModels', {}, idToken)).models.find((m) => m.offline).id;
  const { chat_id: chatId } = await callFunction('createChat', {
    card_ids: chosen.map((c) => c.id), initial_message: question, model: offline,
  }, idToken);
  return { chatId, chosen, uid, idToken };
}

/** The chat's hidden background, as the server packed it. */
export async function backgroundText(chatId) {
  const parts = await adminList(`${COLLECTIONS.chat_backgrounds}/${chatId}/${COLLECTIONS.chat_background_parts}`);
  return parts.map((p) => p.text).join('');
}

/** Publishes a chat as an admin (the owner's toggle is the server's to write). */
export async function publishAsAdmin(chatId) {
  const url = `http://${FIRESTORE}/v1/projects/${PROJECT}/databases/(default)/documents/${COLLECTIONS.chats}/${chatId}?updateMask.fieldPaths=published`;
  const res = await fetch(url, {
    method: 'PATCH', headers: { Authorization: 'Bearer owner', 'content-type': 'application/json' },
    body: JSON.stringify({ fields: { published: { booleanValue: true } } }),
  });
  if (!res.ok) throw new Error(`PATCH ${chatId}: ${res.status}`);
}

/** The owner's page publishes the chat with its toggle; returns once Firestore has it. */
export async function publishFromPage(page, chatId) {
  await page.getByTestId('publish-toggle').check();
  await until('the published flag to reach Firestore',
    async () => (await adminGet(`${COLLECTIONS.chats}/${chatId}`)).published === true, 60_000, 200);
}
