// A short-lived notice at the bottom of the page that outlives a view (a
// deleted card's "Undo" is shown on the cards list the editor returns to).
import { h } from '../dom';

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
  setTimeout(() => el.remove(), ms);
}
