// Under a complete answer whose cards don't (fully) cover its question: the
// notice (coverage.ts) and, for the owner, its actions. Widening and raising
// start a new chat (a chat's collection and share are fixed when it is made):
// they open the Cards page with the question kept for the start-chat dialog.
import {
  ACTION_LABELS, anywayQuestion, collectionFilter, coverageNotice, RAISED_PERCENT, rememberStart,
  type Coverage, type CoverageAction,
} from './coverage';
import { h, replaceChildren } from '../app/dom';
import { cardsPath, router } from '../app/router';

export interface CoverageActions {
  /** The question the answer at message index `index` was asked. */
  question(index: number): string;
  /** Posts a follow-up, as the composer does. */
  ask(content: string): Promise<unknown>;
  /** chat_private.collection.configuration: what the chat's collection was picked by. */
  configuration(): Record<string, unknown> | undefined;
}

export class CoverageNoticeView {
  readonly el = h('div', { class: 'notice coverage-notice', 'data-testid': 'coverage-notice', role: 'note', hidden: true });
  private shown = '';

  /** `actions`: null for a reader who is not the owner (the notice, no action). */
  constructor(private readonly actions: CoverageActions | null) {}

  update(coverage: Coverage | null, index: number): void {
    const notice = coverageNotice(coverage, this.actions !== null);
    const key = JSON.stringify([notice, index]);
    if (key === this.shown) return;
    this.shown = key;
    this.el.hidden = !notice;
    if (!notice) {
      replaceChildren(this.el);
      return;
    }
    this.el.dataset.coverage = notice.coverage;
    replaceChildren(this.el, h('span', { 'data-testid': 'coverage-text' }, notice.text), ' ',
      ...notice.actions.map((a) => this.button(a, index)));
  }

  private button(action: CoverageAction, index: number): HTMLElement {
    const b = h('button', { type: 'button', class: 'small', 'data-testid': `coverage-${action}` }, ACTION_LABELS[action]);
    b.addEventListener('click', () => void this.act(action, index, b));
    return b;
  }

  private async act(action: CoverageAction, index: number, button: HTMLButtonElement): Promise<void> {
    const acts = this.actions;
    if (!acts) return;
    const question = acts.question(index);
    if (action === 'anyway') {
      button.disabled = true;
      await acts.ask(anywayQuestion(question));
      button.disabled = false;
      return;
    }
    rememberStart({ question, percent: action === 'raise' ? RAISED_PERCENT : null });
    const filter = action === 'raise' ? collectionFilter(acts.configuration()) : { tag: null, q: '' };
    router.navigate(cardsPath({ ...filter, scope: null, owner: null, cards: null, chat: null }));
  }
}
