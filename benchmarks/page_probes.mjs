// Functions the browser benchmarks hand to page.evaluate: each runs in the page, so it must not
// close over anything of this module.

/** In the page: time of the first frame where the nth assistant body has text, as window.__t[key]. */
export function watchFirstText([nth, key]) {
  const w = window;
  w.__t = w.__t || {};
  const tick = () => {
    const el = document.querySelectorAll('[data-testid=message][data-role=assistant]')[nth];
    if (el?.querySelector('[data-testid=message-body]')?.textContent?.trim()) {
      w.__t[key] = performance.now();
      return;
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}
