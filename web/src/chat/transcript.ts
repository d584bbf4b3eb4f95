// The transcript of a chat: one MessageView per message, kept in
// message_index order without re-inserting unchanged nodes, re-evaluated
// when a live answer's lease runs out.
import { h, replaceChildren } from '../app/dom';
import { chatCitations, type ChatCitations } from './citations';
import { markdownRenderer } from '../app/markdown';
import { answerInProgress, messagePhase, msUntilStall } from './messagestate';
import { ScrollFollower } from './scrollfollow';
import type { Composer } from './composer';
import { CitePreview } from './citepreview';
import { questionBefore } from './answercard';
import { MessageView, type MessageContext } from './message';
import { Followups } from './followups';
import type { MessageDoc } from '../data/shapes';

const NO_CITATIONS: ChatCitations = chatCitations(null, {});

export class Transcript {
  readonly el = h('div', { class: 'transcript', 'data-testid': 'transcript', tabindex: '0', 'aria-label': 'Conversation' });
  readonly follower = new ScrollFollower(this.el);
  private readonly views = new Map<string, MessageView>();
  private messages: MessageDoc[] = [];
  private stallTimer: ReturnType<typeof setTimeout> | undefined;
  private seenMessages = false;

  /**
   * `citations` is looked up at each use, so a changed card list applies to
   * views already made; `composer` is null for a read-only reader.
   */
  constructor(
    private readonly chatId: string,
    private readonly preparing: boolean,
    private readonly citations: () => ChatCitations | null,
    private readonly composer: () => Composer | null,
    private readonly extras: Pick<MessageContext, 'feedback' | 'usage' | 'modelLabel' | 'coverage' | 'pins'> = {
      feedback: () => null, usage: () => null, modelLabel: (m) => m, pins: null,
      coverage: { question: () => '', ask: async () => {}, configuration: () => undefined },
    },
  ) {
    this.preview = new CitePreview(this.el);
  }

  private readonly preview: CitePreview;
  // the owner's only (they have a composer): the suggestions name cards behind the chat
  private readonly followups = new Followups((q) => this.extras.coverage.ask(q));
  private readonly renderer = markdownRenderer();

  /** Re-renders with the same messages (the owner's ratings changed). */
  refresh(): void {
    this.renderMessages();
  }

  show(messages: MessageDoc[]): void {
    this.messages = messages;
    this.renderMessages();
  }

  dispose(): void {
    clearTimeout(this.stallTimer);
    this.views.forEach((v) => v.dispose());
    this.preview.dispose();
  }

  private renderMessages(): void {
    const { messages } = this;
    if (!this.citations()) return;
    const now = Date.now();
    if (!messages.length) {
      this.seenMessages = true; // whatever arrives next arrives while the reader watches
      replaceChildren(this.el, h('p', { class: 'muted', role: 'status', 'data-testid': 'chat-preparing' },
        h('span', { class: 'spinner', 'aria-hidden': 'true' }), ' Preparing your chat…'));
      this.composer()?.setAnswering(true);
      return;
    }
    const firstLoad = this.views.size === 0 && !this.seenMessages;
    this.seenMessages = true;
    const last = this.placeViews(now, !firstLoad || this.preparing);
    this.dropViews(new Set(messages.map((m) => m.id)));
    while (last?.nextElementSibling) last.nextElementSibling.remove();
    if (this.composer()) this.followups.show(messages, (id) => this.views.get(id)?.el ?? null);
    this.composer()?.setAnswering(answerInProgress(messages, now));
    this.follower.contentChanged();
    this.scheduleStallCheck(now);
  }

  /** Puts each message's view in place and updates it; returns the last one's element. */
  private placeViews(now: number, animate: boolean): Element | null {
    const ctx = {
      chatId: this.chatId,
      render: this.renderer,
      citations: (sources: readonly number[] | null) => (this.citations() ?? NO_CITATIONS).forAnswer(sources),
      citationsKey: () => this.citations()?.key ?? '',
      readOnly: !this.composer(),
      question: (answerId: string) => questionBefore(this.messages, answerId),
      grew: () => this.follower.contentChanged(),
      ...this.extras,
    };
    let previous: Element | null = null;
    for (const m of this.messages) {
      let view = this.views.get(m.id);
      if (!view) {
        view = new MessageView(m, ctx, animate);
        this.views.set(m.id, view);
      }
      // Keep DOM order equal to message_index order without re-inserting unchanged nodes.
      const want: Element | null = previous ? previous.nextElementSibling : this.el.firstElementChild;
      if (want !== view.el) this.el.insertBefore(view.el, want);
      view.update(m, messagePhase(m, now));
      previous = view.el;
    }
    return previous;
  }

  private dropViews(keep: Set<string>): void {
    for (const [id, view] of this.views) {
      if (!keep.has(id)) {
        view.dispose();
        view.el.remove();
        this.views.delete(id);
      }
    }
  }

  // A live answer whose lease lapses turns into "stalled" with nothing
  // changing in Firestore, so the view re-evaluates when the lease runs out.
  private scheduleStallCheck(now: number): void {
    clearTimeout(this.stallTimer);
    const waits = this.messages.map((m) => msUntilStall(m, now)).filter((w): w is number => w !== null);
    if (waits.length) this.stallTimer = setTimeout(() => this.renderMessages(), Math.min(...waits) + 250);
  }
}
