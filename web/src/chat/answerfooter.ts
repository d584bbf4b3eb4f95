// Under each complete answer: the details toggle (model, tokens,
// cost, how often the model searched the owner's cards, time to first token, total time), the count of claims without a
// source with the switch that hides their markers, and, for the chat's owner,
// thumbs up/down with an optional comment (rateAnswer). The rating itself is
// read from answer_feedback, and the input tokens and cost from answer_usage,
// the owner's own documents: the prompt's size is the hidden background's, so a
// visitor or viewer sees the output tokens only.
import { rateAnswer } from '../data/api';
import { h, replaceChildren } from '../app/dom';
import { icon, type IconName } from '../app/icons';
import { describeError } from '../app/errors';
import { formatCost, formatSeconds, formatTokens, tokensLine } from '../account/usage';
import type { AnswerUsageDoc, FeedbackDoc, MessageDoc, Rating } from '../data/shapes';

const HIDE_KEY = 'cardchat.hideUncited';
const MAX_COMMENT = 2000;

export function uncitedHidden(): boolean {
  try {
    return localStorage.getItem(HIDE_KEY) === '1';
  } catch {
    return false;
  }
}

function setUncitedHidden(hidden: boolean): void {
  try {
    localStorage.setItem(HIDE_KEY, hidden ? '1' : '0');
  } catch { /* private mode: the switch holds for this page only */ }
  document.body.classList.toggle('hide-uncited', hidden);
}

/** The owner's line for an answer whose model searched their cards: how often, never what for. */
export function searchedText(searches: number): string {
  return `searched your cards ${searches}×`;
}

export class AnswerFooter {
  readonly el = h('div', { class: 'answer-footer', 'data-testid': 'answer-footer', hidden: true });
  private readonly details = h('dl', { class: 'answer-details', hidden: true, 'data-testid': 'answer-details' });
  private readonly detailsToggle = h('button', {
    type: 'button', class: 'small link', 'aria-expanded': 'false', 'data-testid': 'details-toggle',
  }, 'Details');
  private readonly rating = h('div', { class: 'rating' });
  private msg: MessageDoc | null = null;
  private feedback: FeedbackDoc | null = null;
  private usage: AnswerUsageDoc | null = null;
  private commenting = false;
  private busy = false;
  private error = '';

  constructor(private readonly mayRate: boolean, private readonly label: (model: string) => string) {
    this.detailsToggle.addEventListener('click', () => {
      const open = this.details.hidden;
      this.details.hidden = !open;
      this.detailsToggle.setAttribute('aria-expanded', String(open));
    });
    this.details.id = `details-${Math.random().toString(36).slice(2)}`;
    this.detailsToggle.setAttribute('aria-controls', this.details.id);
    document.body.classList.toggle('hide-uncited', uncitedHidden());
  }

  private shownKey = '';

  update(msg: MessageDoc, feedback: FeedbackDoc | null, usage: AnswerUsageDoc | null = null): void {
    // the transcript calls this on every snapshot: rebuild only when something shown changed,
    // and never under a comment being written
    const key = JSON.stringify([msg.status, msg.model, msg.usage, usage, msg.timings, msg.uncited_claims, feedback, uncitedHidden()]);
    if (key === this.shownKey || this.commenting || this.busy) return;
    this.shownKey = key;
    this.msg = msg;
    this.feedback = feedback;
    this.usage = usage;
    const complete = msg.role === 'assistant' && msg.status === 'complete';
    this.el.hidden = !complete;
    if (!complete) return;
    this.renderDetails(msg);
    const uncited = msg.uncited_claims ?? 0;
    const markers = uncited ? this.uncitedSwitch(uncited) : null;
    replaceChildren(this.el, h('div', { class: 'answer-tools' }, this.detailsToggle, markers, h('span', { class: 'spacer' }),
      this.mayRate ? this.rating : null), this.details);
    if (this.mayRate) this.renderRating();
  }

  private uncitedSwitch(n: number): HTMLElement {
    const hidden = uncitedHidden();
    const b = h('button', { type: 'button', class: 'small link', 'aria-pressed': String(!hidden), 'data-testid': 'uncited-toggle',
      title: hidden ? 'Show the markers' : 'Hide the markers' }, `${n} ${n === 1 ? 'claim' : 'claims'} without a source`);
    b.addEventListener('click', () => {
      setUncitedHidden(!uncitedHidden());
      if (this.msg) this.update(this.msg, this.feedback, this.usage);
      (this.el.querySelector('[data-testid="uncited-toggle"]') as HTMLElement | null)?.focus();
    });
    return b;
  }

  private renderDetails(msg: MessageDoc): void {
    const u = this.usage; // the owner's alone
    const out = msg.usage ? `${formatTokens(msg.usage.output_tokens)} out` : '—';
    const t = msg.timings;
    const row = (term: string, value: string, key: string) =>
      [h('dt', null, term), h('dd', { 'data-testid': `detail-${key}` }, value)];
    replaceChildren(this.details,
      row('Model', msg.model ? this.label(msg.model) : '—', 'model'),
      row('Tokens', u ? tokensLine(u, out) : out, 'tokens'),
      u ? row('Cost', formatCost(u.cost_usd), 'cost') : null,
      u?.card_searches ? row('Looked further', searchedText(u.card_searches), 'searches') : null,
      row('First words after', t ? formatSeconds(t.ttft) : '—', 'ttft'),
      row('Total time', t ? formatSeconds(t.total) : '—', 'total'));
  }

  private renderRating(): void {
    const current = this.feedback?.rating ?? null;
    const thumb = (rating: Rating, glyph: IconName, label: string) => {
      // the icon has no visible text: the name is the label, and the tooltip shows it to the sighted
      const b = h('button', { type: 'button', class: 'small thumb', 'aria-pressed': String(current === rating),
        'aria-label': label, title: label, 'data-testid': `rate-${rating}`, disabled: this.busy });
      b.append(icon(glyph));
      b.addEventListener('click', () => void this.rate(current === rating ? null : rating, this.feedback?.comment ?? ''));
      return b;
    };
    const commentBox = this.commenting && current ? this.commentForm(current) : null;
    const commentLink = current && !this.commenting
      ? h('button', { type: 'button', class: 'small link', 'data-testid': 'rate-comment',
        onclick: () => { this.commenting = true; this.renderRating(); } }, this.feedback?.comment ? 'Edit comment' : 'Add a comment')
      : null;
    replaceChildren(this.rating, thumb('up', 'thumb-up', 'Good answer'), thumb('down', 'thumb-down', 'Poor answer'), commentLink,
      this.error ? h('span', { class: 'error', role: 'alert' }, this.error) : null, commentBox);
  }

  private commentForm(rating: Rating): HTMLElement {
    // a re-render while the comment is written (the rating call returning) keeps the draft
    const old = this.rating.querySelector('textarea');
    const draft = old?.value;
    const area = h('textarea', { maxlength: MAX_COMMENT, rows: 2, 'aria-label': 'Comment on this answer', 'data-testid': 'rate-comment-text' });
    area.value = draft ?? this.feedback?.comment ?? '';
    const form = h('form', { class: 'rate-comment' }, area,
      h('button', { type: 'submit', class: 'small primary', 'data-testid': 'rate-comment-save', disabled: this.busy }, 'Save'),
      h('button', { type: 'button', class: 'small', onclick: () => { this.commenting = false; this.renderRating(); } }, 'Cancel'));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.commenting = false;
      void this.rate(rating, area.value);
    });
    if (!old || document.activeElement === old) queueMicrotask(() => area.focus());
    return form;
  }

  private async rate(rating: Rating | null, comment: string): Promise<void> {
    if (!this.msg) return;
    this.busy = true;
    this.error = '';
    // shown at once; the owner's listener on answer_feedback confirms it
    this.feedback = rating ? { message: this.msg.id, rating, comment } : null;
    this.renderRating();
    try {
      await rateAnswer({ message_id: this.msg.id, rating, comment: rating ? comment : undefined });
    } catch (err) {
      this.error = describeError(err, 'Rating');
    }
    this.busy = false;
    this.renderRating();
  }
}
