// One message of the transcript. An assistant message that is still being
// generated listens to its chunks and reveals them at a steady pace; once it
// completes, the listener is dropped along with the chunks it held.
import { retryMessage } from '../data/api';
import { ChunkBuffer } from './chunks';
import { copyText, flash, h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { answerSources, type CitationMap } from './citations';
import type { Renderer } from '../app/markdown';
import {
  canRetry, cutOffNotice, droppedTurnsNotice, failureNotice, providerWaitNotice, shouldAutoRetry, type Phase,
} from './messagestate';
import { watchChunks } from '../data/messages';
import { markUncited } from './claims';
import { markChecks } from './citationchecks';
import { AnswerFooter } from './answerfooter';
import { AnswerSources } from './answersources';
import type { PinState } from './pincontrols';
import { CoverageNoticeView, type CoverageActions } from './coveragenotice';
import { saveAsCardButton } from './saveascard';
import { BranchEditor } from './branchedit';
import { StreamRevealer } from './streamreveal';
import type { AnswerUsageDoc, FeedbackDoc, MessageDoc } from '../data/shapes';

export interface MessageContext {
  chatId: string;
  render: Renderer;
  /** What each [n] of an answer names for this reader, given the answer's stored `sources`. */
  citations: (sources: readonly number[] | null) => CitationMap;
  /** Changes whenever what some [n] names may have changed: a shown answer is rendered again. */
  citationsKey: () => string;
  readOnly: boolean;
  /** The question an answer (by id) answers. */
  question: (answerId: string) => string;
  /** The owner's rating of an answer (null for none, or for a reader who is not the owner). */
  feedback: (messageId: string) => FeedbackDoc | null;
  /** What an answer's prompt counted and cost (null for a reader who is not the owner, or until it is read). */
  usage: (messageId: string) => AnswerUsageDoc | null;
  modelLabel: (model: string) => string;
  /** the transcript grew: keep it scrolled if the reader is following */
  grew: () => void;
  /** What a coverage notice's actions need (used for the owner only: `readOnly` false). */
  coverage: CoverageActions;
  /** The owner's pin and exclude controls (used for the owner only: `readOnly` false). */
  pins: PinState | null;
}

export class MessageView {
  readonly el: HTMLElement;
  private readonly body: HTMLElement;
  private readonly notice: HTMLElement;
  private readonly cutOff: HTMLElement;
  private readonly state: HTMLElement;
  private msg: MessageDoc;
  private phase: Phase | null = null;
  private chunks: ChunkBuffer | null = null;
  private unsubscribeChunks: (() => void) | null = null;
  private revealer: StreamRevealer | null = null;
  private shownContent: string | null = null;
  private shownCitations = '';
  private retrying = false;
  private autoRetried = false;
  private retryError = '';
  private editor: BranchEditor | null = null;
  private readonly footer: AnswerFooter | null;
  private readonly sources: AnswerSources | null;
  private readonly coverage: CoverageNoticeView | null;
  private readonly saveAsCard: HTMLButtonElement | null;

  /**
   * `fresh`: the message appeared while the reader was watching (not in the
   * transcript as first loaded), so even if it is already complete when first
   * seen, it is revealed at reading pace rather than dropped in at once.
   */
  constructor(msg: MessageDoc, private readonly ctx: MessageContext, private fresh = false) {
    this.msg = msg;
    const isUser = msg.role === 'user';
    this.body = h('div', { class: isUser ? 'plain' : 'markdown', 'data-testid': 'message-body' });
    this.notice = h('p', { class: 'notice', hidden: true, 'data-testid': 'dropped-turns' });
    this.cutOff = h('p', { class: 'notice', hidden: true, 'data-testid': 'cut-off' });
    this.state = h('div', { class: 'message-state' });
    // the owner's only: a visitor or viewer never turns a shared chat into cards
    this.saveAsCard = isUser || ctx.readOnly ? null
      : saveAsCardButton(ctx.chatId, () => this.msg, () => this.cites(), () => ctx.question(this.msg.id));
    if (this.saveAsCard) this.saveAsCard.hidden = true;
    const copy = h('button', { type: 'button', class: 'small', 'data-testid': 'copy-message', 'aria-label': 'Copy this message' }, 'Copy');
    copy.addEventListener('click', async () => flash(copy, (await copyText(this.copyableText())) ? 'Copied' : 'Copy failed'));
    this.el = h('article', {
      class: `message ${msg.role}`, 'data-testid': 'message', 'data-role': msg.role, 'data-message-id': msg.id,
      'aria-label': isUser ? 'You' : 'Answer',
    },
      h('div', { class: 'message-head' }, h('span', { class: 'who' }, isUser ? 'You' : 'Answer'), h('span', { class: 'spacer' }),
        isUser && !ctx.readOnly ? this.editButton() : null, this.saveAsCard, copy),
      this.notice, this.body, this.cutOff, this.state);
    this.sources = isUser ? null : new AnswerSources(ctx.readOnly ? null : ctx.pins);
    this.footer = isUser ? null : new AnswerFooter(!ctx.readOnly, ctx.modelLabel);
    this.coverage = isUser ? null : new CoverageNoticeView(ctx.readOnly ? null : ctx.coverage);
    if (this.coverage) this.el.appendChild(this.coverage.el);
    if (this.sources) this.el.appendChild(this.sources.el);
    if (this.footer) this.el.appendChild(this.footer.el);
    if (!isUser) {
      this.body.setAttribute('aria-live', 'polite');
      this.body.setAttribute('aria-atomic', 'false');
    }
  }

  update(msg: MessageDoc, phase: Phase): void {
    this.msg = msg;
    const phaseChanged = phase !== this.phase;
    this.phase = phase;
    this.el.dataset.status = msg.status;
    this.el.dataset.index = String(msg.message_index);
    this.el.dataset.phase = phase;
    const notice = droppedTurnsNotice(msg.dropped_turns);
    this.notice.hidden = !notice;
    this.notice.textContent = notice ?? '';
    const cutOff = msg.status === 'complete' ? cutOffNotice(msg.cut_off) : null;
    this.cutOff.hidden = !cutOff;
    this.cutOff.textContent = cutOff ?? '';

    if (msg.role === 'user') {
      if (!this.editor && this.shownContent !== msg.content) this.body.textContent = this.shownContent = msg.content;
      return;
    }
    const live = phase === 'waiting' || phase === 'streaming' || phase === 'stalled';
    if (live) {
      this.listenToChunks();
    } else {
      this.stopChunks();
    }
    this.body.setAttribute('aria-busy', String(live));

    if (phase === 'complete') {
      if (this.fresh && !this.revealer && this.shownContent === null) this.revealer = this.newRevealer();
      if (this.revealer && !this.revealer.done) this.revealer.update(msg.content, true);
      else this.show(msg.content);
    } else if (phase === 'failed' && msg.content) {
      this.revealer?.stop();
      this.show(msg.content);
    }
    const complete = phase === 'complete' && msg.status === 'complete';
    this.coverage?.update(complete ? msg.coverage : null, msg.message_index);
    this.sources?.update(complete ? answerSources(msg.content, this.cites()) : null, complete && msg.coverage === 'none');
    this.footer?.update(msg, this.ctx.feedback(msg.id), this.ctx.usage(msg.id));
    if (this.saveAsCard) this.saveAsCard.hidden = !(phase === 'complete' && msg.status === 'complete');
    if (phaseChanged && live) this.retrying = false;
    if (shouldAutoRetry(phase, msg.attempts, this.ctx.readOnly, this.autoRetried)) {
      this.autoRetried = true;
      void this.retry();
      return;
    }
    this.renderState();
  }

  dispose(): void {
    this.stopChunks();
    this.revealer?.stop();
  }

  private editButton(): HTMLElement {
    const edit = h('button', {
      type: 'button', class: 'small', 'data-testid': 'edit-message', 'aria-label': 'Edit this question in a new branch',
    }, 'Edit');
    edit.addEventListener('click', () => {
      if (this.editor) return;
      this.editor = new BranchEditor(this.ctx.chatId, this.msg.message_index, this.msg.content, () => {
        this.editor = null;
        this.shownContent = null;
        this.update(this.msg, this.phase ?? 'complete');
      });
      replaceChildren(this.body, this.editor.el);
      this.editor.focus();
      this.ctx.grew();
    });
    return edit;
  }

  private copyableText(): string {
    return this.msg.content || this.chunks?.text() || '';
  }

  /** What this answer's [n] name depends on: the chat's card list and the answer's own sources. */
  private citationsKey(): string {
    return `${this.ctx.citationsKey()}|${this.msg.sources?.join(',') ?? '-'}`;
  }

  private cites(): CitationMap {
    return this.ctx.citations(this.msg.sources);
  }

  /** Renders `content` with this answer's citations; marks its uncited claims once it is complete. */
  private paint(content: string, complete: boolean): void {
    const cites = this.cites();
    this.shownCitations = this.citationsKey();
    this.body.innerHTML = this.ctx.render(content, cites);
    if (!complete) return;
    const citable = (n: number) => cites.card(n) !== null;
    markUncited(this.body, citable);
    markChecks(this.body, this.msg.citation_checks, citable);
  }

  private show(content: string): void {
    if (this.shownContent === content && this.shownCitations === this.citationsKey()) return;
    this.shownContent = content;
    this.paint(content, this.msg.status === 'complete');
    this.ctx.grew();
  }

  private listenToChunks(): void {
    if (this.unsubscribeChunks) return;
    this.chunks = new ChunkBuffer();
    // A fresh run (first stream or a retry) reveals from its own start.
    this.revealer?.stop();
    this.revealer = this.newRevealer();
    this.unsubscribeChunks = watchChunks(
      this.ctx.chatId,
      this.msg.id,
      (changes) => {
        const buf = this.chunks;
        if (!buf) return;
        // Chunks are deleted after completion; by then the full text is on the message.
        for (const c of changes) if (c.type !== 'removed') buf.set(c.index, c.content);
        this.revealer?.update(buf.text(), false);
      },
      () => {
        // Losing the chunk stream is not fatal: the final message still arrives.
        this.stopChunks();
      },
    );
  }

  private newRevealer(): StreamRevealer {
    return new StreamRevealer((visible, done) => {
      this.el.classList.toggle('revealing', !done);
      this.paint(visible, done && this.msg.status === 'complete');
      this.shownContent = done ? visible : null;
      this.ctx.grew();
    });
  }

  private stopChunks(): void {
    this.unsubscribeChunks?.();
    this.unsubscribeChunks = null;
    this.chunks?.clear();
    this.chunks = null;
  }

  private async retry(): Promise<void> {
    this.retrying = true;
    this.retryError = '';
    this.renderState();
    try {
      await retryMessage({ message_id: this.msg.id });
    } catch (err) {
      this.retrying = false;
      this.retryError = describeError(err, 'Retrying');
      this.renderState();
    }
  }

  private renderState(): void {
    const phase = this.phase;
    const nothingYet = !this.msg.content && !(this.chunks && this.chunks.size);
    const busy = phase === 'streaming' ? providerWaitNotice(this.msg.provider_wait) : null;
    if ((phase === 'waiting' || busy) && nothingYet) {
      replaceChildren(this.state, h('p', { class: 'muted thinking', 'data-testid': busy ? 'provider-wait' : 'waiting' },
        h('span', { class: 'spinner', 'aria-hidden': 'true' }), ` ${busy ?? 'Working on an answer…'}`));
      return;
    }
    if (!phase || !canRetry(phase)) {
      replaceChildren(this.state);
      return;
    }
    const text = phase === 'stalled'
      ? 'This answer stopped arriving: the server working on it went quiet.'
      : failureNotice(this.msg.error);
    const retry = h('button', { type: 'button', 'data-testid': 'retry', disabled: this.retrying || this.ctx.readOnly },
      this.retrying ? 'Retrying…' : 'Retry');
    retry.addEventListener('click', () => void this.retry());
    replaceChildren(this.state, h('div', { class: 'error-box', role: 'alert', 'data-testid': 'message-error' },
      h('p', null, text),
      this.ctx.readOnly ? null : retry,
      this.retryError ? h('p', { class: 'error' }, this.retryError) : null));
  }
}
