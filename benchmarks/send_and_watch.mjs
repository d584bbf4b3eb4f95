// What the browser benchmarks share: Send a question from the Cards page, then a follow-up, and time
// each in the page's own clock (window.__t, as page_probes.watchFirstText keeps it).
import { watchFirstText } from './page_probes.mjs';

const COMPLETE = '[data-testid=message][data-role=assistant][data-phase=complete]';

/**
 * "Chat with all N cards" with the offline model, then `question`: ms from Send (the click) to the chat
 * page and to the first visible answer text, once the answer is complete. `marks`: 'fresh' starts
 * window.__t anew at Send, 'keep' adds to the marks already there (a sign-in's, say).
 */
export async function askFirst(page, question, { limit = 120_000, marks = 'fresh' } = {}) {
  await page.getByTestId('chat-with-cards').click();
  await page.waitForFunction(() => !document.querySelector('[data-testid=model-picker]')?.disabled, null, { timeout: limit });
  const offline = await page.locator('[data-testid=model-picker] option[data-offline=true]').first().getAttribute('value');
  await page.getByTestId('model-picker').selectOption(offline);
  await page.getByTestId('start-message').fill(question);
  await page.evaluate((keep) => {
    const w = window;
    w.__t = keep ? { ...w.__t, send: performance.now() } : { send: performance.now() };
    new MutationObserver((_, obs) => {
      if (document.body.dataset.route === 'chat' && document.querySelector('[data-testid=chat-title]')) {
        w.__t.page = performance.now();
        obs.disconnect();
      }
    }).observe(document.body, { attributes: true, childList: true, subtree: true });
    document.querySelector('[data-testid=start-submit]').click();
  }, marks === 'keep');
  await page.evaluate(watchFirstText, [0, 'first']);
  await page.waitForFunction(() => window.__t.first, null, { timeout: limit });
  await page.locator(COMPLETE).first().waitFor({ timeout: limit });
  return page.evaluate(() => ({ page: window.__t.page - window.__t.send, text: window.__t.first - window.__t.send }));
}

/** The follow-up `text`, sent with Enter: ms from the key to its first visible text, once it is complete. */
export async function askFollowUp(page, text, { limit = 120_000 } = {}) {
  const input = page.getByTestId('composer-input');
  await page.waitForFunction(() => !document.querySelector('[data-testid=composer-input]')?.disabled, null, { timeout: limit });
  await input.fill(text);
  await page.evaluate(() => {
    document.querySelector('[data-testid=composer-input]').addEventListener('keydown', (e) => {
      if (e.key === 'Enter') window.__t.send2 = performance.now();
    }, { capture: true, once: true });
  });
  await page.evaluate(watchFirstText, [1, 'follow']);
  await input.press('Enter');
  await page.waitForFunction(() => window.__t.follow, null, { timeout: limit });
  await page.locator(COMPLETE).nth(1).waitFor({ timeout: limit });
  return page.evaluate(() => window.__t.follow - window.__t.send2);
}
