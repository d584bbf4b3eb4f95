// Warms a fresh stack's browser-facing paths before scripts/dev says ready: the
// newcomer's path once in headless Chromium (sign in as the demo user, the Cards
// page, a chat with all the cards, a follow-up; benchmarks/newcomer.mjs), then
// the chat deleted. The Firestore emulator answers a browser's first queries
// and listens far slower than later ones (its web-facing code paths are cold);
// scripts/warm.py warms the functions and the store, but over gRPC only.
import { launch, signInRest, callFunction } from '../web/e2e/support.mjs';
import { walk } from '../benchmarks/newcomer.mjs';

const start = Date.now();
const browser = await launch();
try {
  const { chatId } = await walk(browser);
  const { idToken } = await signInRest();
  await callFunction('deleteChat', { chat_id: chatId }, idToken);
} finally {
  await browser.close();
}
console.log(`warmed the browser's path in ${((Date.now() - start) / 1000).toFixed(1)}s`);
