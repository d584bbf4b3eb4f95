// "Suggested follow-ups" under the chat's last answer, for its owner only: up
// to three questions the server (suggestFollowups) makes from the titles of
// cards near the ones the answer cited. Those titles are of cards behind the
// chat, so they are asked for only where the reader may ask (the owner's
// transcript has a composer) and never stored where a visitor could read them.
import { suggestFollowups } from '../data/api';
import { h, replaceChildren } from '../app/dom';
import { followupTarget } from './suggestions';
import type { MessageDoc } from '../data/shapes';

export class Followups {
  readonly el = h('div', { class: 'followups', 'data-testid': 'followups', hidden: true, 'aria-label': 'Suggested follow-ups' });
  private forId: string | null = null;

  constructor(private readonly ask: (question: string) => Promise<unknown>) {}

  /** Shows the suggestions after `messages`' last answer under `host` (its view); hides them otherwise. */
  show(messages: readonly MessageDoc[], host: (id: string) => HTMLElement | null): void {
    const id = followupTarget(messages);
    const at = id ? host(id) : null;
    if (at && this.el.parentElement !== at) at.appendChild(this.el);
    if (id === this.forId) return;
    this.forId = id;
    this.el.hidden = true;
    delete this.el.dataset.state;
    replaceChildren(this.el);
    if (id) void this.load(id);
  }

  private async load(id: string): Promise<void> {
    let questions: string[];
    try {
      questions = (await suggestFollowups({ message_id: id })).questions;
    } catch {
      // Suggestions are an offer, not the answer: without them the chat reads the same.
      if (this.forId === id) this.el.dataset.state = 'failed';
      return;
    }
    if (this.forId !== id) return;
    this.el.dataset.state = 'loaded';
    if (!questions.length) return;
    const buttons = questions.map((q) => h('button', { type: 'button', class: 'small followup', 'data-testid': 'followup' }, q));
    buttons.forEach((b) => b.addEventListener('click', () => {
      buttons.forEach((x) => (x.disabled = true));
      void this.ask(b.textContent ?? '').finally(() => buttons.forEach((x) => (x.disabled = false)));
    }));
    replaceChildren(this.el, h('span', { class: 'muted' }, 'Ask next:'), ...buttons);
    this.el.hidden = false;
  }
}
