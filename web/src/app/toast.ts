// A short-lived notice at the bottom of the page that outlives a view (a
// deleted card's "Undo" is shown on the cards list the editor returns to).
// Its time stops while the pointer is over it or it holds the focus: a user
// reaching for "Undo", or reading slowly, does not lose it (WCAG 2.2.1).
import { h } from './dom';

let current: HTMLElement | null = null;

export function showToast(text: string, action?: { label: string; run: () => void }, ms = 6000): void {
  current?.remove();
  const el = h('div', { class: 'toast', role: 'status', 'data-testid': 'toast' }, h('span', null, text));
  if (action) {
    el.append(h('button', { type: 'button', class: 'small', 'data-testid': 'toast-action', onclick: () => { el.remove(); action.run(); } },
      action.label));
  }
  document.body.append(el);
  current = el;
  let left = ms;
  let since = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(() => el.remove(), left);
  let holders = 0; // the pointer and the focus: either holds it
  const hold = () => {
    if (holders++ > 0) return;
    clearTimeout(timer);
    timer = undefined;
    left = Math.max(0, left - (Date.now() - since));
  };
  const release = () => {
    if (--holders > 0 || timer !== undefined) return;
    since = Date.now();
    timer = setTimeout(() => el.remove(), left);
  };
  el.addEventListener('mouseenter', hold);
  el.addEventListener('mouseleave', release);
  el.addEventListener('focusin', hold);
  el.addEventListener('focusout', release);
}
