// The chat view: transcript (live), header, composer; read-only for visitors
// of a published chat. Nothing here can see the hidden background: the
// client only ever reads the chat document and its messages, and the owner
// (only the owner: a visitor never asks) its chat_private document.
import { listModels } from '../data/api';
import { mark } from '../app/timing';
import { h, replaceChildren } from '../app/dom';
import { errorCode, describeError } from '../app/errors';
import { failureText } from '../app/loadstate';
import type { Session } from '../data/session';
import { chatCitations, type ChatCitations } from './citations';
import { getChatAuthor, watchChat, watchChatPrivate } from '../data/chatreads';
import { watchMessages } from '../data/messages';
import { watchAnswerUsage, watchFeedback } from '../data/ownerqueries';
import { watchIsViewer, watchViewerCount } from '../data/chatviewers';
import { ChatHeader } from './chatheader';
import { transcriptButton } from './transcriptdownload';
import { mountChatList } from './chats';
import { Composer } from './composer';
import { renderSignIn } from '../account/signin';
import { justCreated } from './startchat';
import { Transcript } from './transcript';
import { PinState } from './pincontrols';
import type { AnswerUsageDoc, ChatDoc, ChatPrivateDoc, FeedbackDoc, MessageDoc } from '../data/shapes';

export function mountChat(root: HTMLElement, chatId: string, s: Session): () => void {
  const view = new ChatView(root, chatId, s.user?.uid ?? null);
  return () => view.dispose();
}

class ChatView {
  private readonly cleanups: Array<() => void> = [];
  private readonly main = h('section', { class: 'chat-main' });
  private readonly transcript: Transcript;
  private chat: ChatDoc | null = null;
  // The owner's chat_private: undefined until it has answered (or for a visitor, who never asks).
  private priv: ChatPrivateDoc | null | undefined;
  private privWatched = false;
  private messages: MessageDoc[] | null = null;
  private failed = false;
  // A failed or offline messages listener says so (and is retried), never shows an empty chat.
  private readonly messagesTrouble = h('p', { class: 'error', role: 'alert', hidden: true, 'data-testid': 'load-failed' });
  private readonly modelLabels = new Map<string, string>();
  private header: ChatHeader | null = null;
  private composer: Composer | null = null;
  private citations: ChatCitations | null = null;
  // the owner's ratings of this chat's answers and what each counted (answer_feedback, answer_usage: theirs alone)
  private feedback = new Map<string, FeedbackDoc>();
  private usage = new Map<string, AnswerUsageDoc>();
  private ownerDataWatched = false;

  // The owner's pins and exclusions, from chat_private (a visitor's stay empty and are never shown).
  private readonly pins: PinState;

  constructor(root: HTMLElement, private readonly chatId: string, private readonly uid: string | null) {
    mark('chat-mount');
    this.pins = new PinState(chatId);
    const preparing = justCreated.delete(chatId);
    this.transcript = new Transcript(chatId, preparing, () => this.citations, () => this.composer, {
      feedback: (id) => this.feedback.get(id) ?? null,
      usage: (id) => this.usage.get(id) ?? null,
      modelLabel: (id) => this.modelLabels.get(id) ?? id,
      pins: this.pins,
      coverage: {
        question: (index) => this.messages?.find((m) => m.message_index === index - 1)?.content ?? '',
        ask: (content) => this.composer?.ask(content) ?? Promise.resolve(),
        configuration: () => this.priv?.collection.configuration,
      },
    });
    this.layout(root, preparing);
    this.watch();
    // A chat made here a moment ago is the reader's own: its chat_private is read beside the chat,
    // not one round trip after it (the header waits for it).
    if (preparing) this.watchPrivate();
    if (uid) this.loadModelLabels();
  }

  dispose(): void {
    this.cleanups.forEach((c) => c());
    this.transcript.dispose();
  }

  private layout(root: HTMLElement, preparing: boolean): void {
    const { uid, main } = this;
    const listEl = h('div');
    const closeList = h('button', { type: 'button', class: 'small only-narrow', 'data-testid': 'close-chat-list' }, 'Close');
    const sidebar = h('aside', { class: 'chat-sidebar', id: 'chat-sidebar', 'aria-label': 'Your chats' }, closeList, listEl);
    const loading = h('p', { class: 'muted loading', role: 'status', 'data-testid': preparing ? 'chat-preparing' : 'chat-loading' },
      h('span', { class: 'spinner', 'aria-hidden': 'true' }), preparing ? ' Preparing your chat…' : ' Loading chat…');
    replaceChildren(main, loading);
    const layout = h('div', { class: `chat-layout${uid ? '' : ' no-sidebar'}` }, uid ? sidebar : null, main);
    replaceChildren(root, layout);
    if (uid) this.cleanups.push(mountChatList(listEl, uid, this.chatId));
    // On a phone the list is an overlay, opened from the header's "Chats" button.
    closeList.addEventListener('click', () => layout.classList.remove('show-list'));
    layout.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') layout.classList.remove('show-list');
    });
  }

  private watch(): void {
    const { uid } = this;
    this.cleanups.push(watchChat(
      this.chatId,
      (c) => {
        mark('chat-doc');
        if (!c) return this.showProblem('This chat does not exist. It may have been deleted.', false);
        this.chat = c;
        this.build();
      },
      (err) => {
        if (errorCode(err) === 'permission-denied' && this.chat) {
          // It was readable a moment ago: the owner removed this reader (or unpublished it).
          this.showProblem('Your access to this chat was removed.', false, 'access-removed');
        } else if (errorCode(err) === 'permission-denied') {
          this.showProblem(uid ? 'This chat is not shared with you.' : 'This chat is not published.', !uid);
        } else {
          this.showProblem(`Could not load the chat: ${describeError(err)}`, false);
        }
      },
    ));
    this.cleanups.push(watchMessages(
      this.chatId,
      (m) => {
        mark('chat-messages');
        const first = this.messages === null;
        this.messages = m;
        this.messagesTrouble.hidden = true;
        this.build();
        if (first) {
          this.transcript.follower.jumpToBottom();
          this.composer?.focus();
          openAtMessage(this.transcript.el);
        }
      },
      (err) => {
        // Access problems are reported once, by the chat document's listener.
        if (errorCode(err) === 'permission-denied' || this.failed) return;
        this.messagesTrouble.textContent = failureText('messages', err);
        this.messagesTrouble.hidden = false;
        if (!this.header) replaceChildren(this.main, this.messagesTrouble);
      },
    ));
  }

  /**
   * Whom the chat is shared with, from chat_viewers (never on the chat): the
   * owner's count; a reader's own doc, whose removal ends an unpublished chat's
   * reading at once (the chat's own listener is re-checked only when it changes).
   */
  private watchViewers(isOwner: boolean): void {
    const { uid } = this;
    if (!uid) return;
    if (isOwner) {
      this.cleanups.push(watchViewerCount(this.chatId, uid, (n) => this.header?.setViewerCount(n)));
      return;
    }
    let was = false;
    this.cleanups.push(watchIsViewer(this.chatId, uid, (now) => {
      if (was && !now && !this.chat?.published) {
        this.showProblem('Your access to this chat was removed.', false, 'access-removed');
      }
      was = now;
      this.header?.setSharedWithReader(now);
    }));
  }

  private loadModelLabels(): void {
    listModels().then((list) => {
      for (const m of list.models) this.modelLabels.set(m.id, m.offline ? `${m.label} (offline)` : m.label);
      if (this.chat && this.header) this.header.render(this.chat, this.priv ?? null);
    }, () => {});
  }

  private showProblem(text: string, offerSignIn: boolean, testId = 'chat-problem'): void {
    this.failed = true;
    replaceChildren(this.main, h('section', { class: 'panel', 'data-testid': testId }, h('p', { role: 'alert' }, text)));
    if (offerSignIn) {
      const box = h('div');
      this.main.appendChild(box);
      renderSignIn(box, 'If this chat is yours, sign in to open it.');
    }
  }

  private watchPrivate(): void {
    if (this.privWatched) return;
    this.privWatched = true;
    const settle = (p: ChatPrivateDoc | null) => { mark('chat-private'); this.priv = p; this.build(); };
    this.cleanups.push(watchChatPrivate(this.chatId, settle, () => settle(null)));
  }

  private build(): void {
    const { chat, messages } = this;
    if (this.failed || !chat || !messages) return;
    const isOwner = this.uid !== null && chat.owner === this.uid;
    if (isOwner) this.watchPrivate();
    if (isOwner && this.uid && !this.ownerDataWatched) {
      this.ownerDataWatched = true;
      this.cleanups.push(watchFeedback(this.uid, this.chatId, (f) => { this.feedback = f; this.transcript.refresh(); }, () => {}));
      this.cleanups.push(watchAnswerUsage(this.uid, this.chatId, (u) => { this.usage = u; this.transcript.refresh(); }, () => {}));
    }
    // The owner's citations need their card list: wait for it rather than render them as a visitor's.
    if (isOwner && this.priv === undefined) return;
    if (!this.header) {
      this.header = new ChatHeader(isOwner, (id) => this.modelLabels.get(id) ?? id, this.uid, isOwner ? this.pins : null);
      // The author chip: the rules give its name to viewers, and to visitors only if the owner shows it.
      if (!isOwner) void getChatAuthor(this.chatId).then((name) => this.header?.setAuthor(name));
      this.watchViewers(isOwner);
      this.composer = isOwner ? new Composer(this.chatId) : null;
      if (isOwner) this.header.ownerActions.append(transcriptButton(() => ({ chat: this.chat, priv: this.priv, messages: this.messages })));
      replaceChildren(this.main, this.header.el, this.messagesTrouble, this.transcript.el, this.composer?.el ?? null);
      mark('chat-shown');
    }
    if (isOwner) this.pins.update(this.priv ?? null);
    this.header.render(chat, this.priv ?? null);
    const citations = chatCitations(this.priv ? this.priv.card_ids : null, chat.public_citations);
    if (citations.key !== this.citations?.key) this.citations = citations;
    this.transcript.show(messages);
  }
}

/** A search hit's link (?m=N) opens the chat at message N, marked, rather than at its end. */
function openAtMessage(transcript: HTMLElement): void {
  const at = new URLSearchParams(location.search).get('m');
  const el = at === null ? null : transcript.querySelector<HTMLElement>(`[data-index="${Number(at)}"]`);
  if (!el) return;
  el.classList.add('search-hit');
  el.scrollIntoView({ block: 'center' });
}
