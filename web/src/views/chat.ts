// The chat view: transcript (live), header, composer; read-only for visitors
// of a published chat. Nothing here can see the hidden background: the
// client only ever reads the chat document and its messages, and the owner
// (only the owner: a visitor never asks) its chat_private document.
import { listModels } from '../api';
import { h, replaceChildren } from '../dom';
import { errorCode, describeError } from '../errors';
import { markdownRenderer, type Renderer } from '../markdown';
import { answerInProgress, messagePhase, msUntilStall } from '../messagestate';
import { ScrollFollower } from '../scrollfollow';
import type { Session } from '../session';
import { publicCitationIds } from '../citations';
import {
  watchChat, watchChatPrivate, watchMessages, type ChatDoc, type ChatPrivateDoc, type MessageDoc,
} from '../store';
import { ChatHeader } from './chatheader';
import { mountChatList } from './chats';
import { Composer } from './composer';
import { MessageView } from './message';
import { renderSignIn } from './signin';
import { justCreated } from './startchat';

export function mountChat(root: HTMLElement, chatId: string, s: Session): () => void {
  const uid = s.user?.uid ?? null;
  const preparing = justCreated.delete(chatId);
  const cleanups: Array<() => void> = [];
  let chat: ChatDoc | null = null;
  // The owner's chat_private: undefined until it has answered (or for a visitor, who never asks).
  let priv: ChatPrivateDoc | null | undefined;
  let privWatched = false;
  let messages: MessageDoc[] | null = null;
  let failed = false;
  const modelLabels = new Map<string, string>();

  const listEl = h('div');
  const closeList = h('button', { type: 'button', class: 'small only-narrow', 'data-testid': 'close-chat-list' }, 'Close');
  const sidebar = h('aside', { class: 'chat-sidebar', id: 'chat-sidebar', 'aria-label': 'Your chats' }, closeList, listEl);
  const main = h('section', { class: 'chat-main' });
  const transcript = h('div', { class: 'transcript', 'data-testid': 'transcript', tabindex: '0', 'aria-label': 'Conversation' });
  const loading = h('p', { class: 'muted loading', role: 'status', 'data-testid': preparing ? 'chat-preparing' : 'chat-loading' },
    h('span', { class: 'spinner', 'aria-hidden': 'true' }), preparing ? ' Preparing your chat…' : ' Loading chat…');
  replaceChildren(main, loading);
  replaceChildren(root, h('div', { class: `chat-layout${uid ? '' : ' no-sidebar'}` }, uid ? sidebar : null, main));
  if (uid) cleanups.push(mountChatList(listEl, uid, chatId));
  // On a phone the list is an overlay, opened from the header's "Chats" button.
  const layout = root.querySelector('.chat-layout') as HTMLElement;
  closeList.addEventListener('click', () => layout.classList.remove('show-list'));
  layout.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') layout.classList.remove('show-list');
  });

  const follower = new ScrollFollower(transcript);
  let header: ChatHeader | null = null;
  let composer: Composer | null = null;
  let render: Renderer | null = null;
  let renderKey = '';
  const views = new Map<string, MessageView>();
  let stallTimer: ReturnType<typeof setTimeout> | undefined;
  let seenMessages = false;

  const showProblem = (text: string, offerSignIn: boolean) => {
    failed = true;
    replaceChildren(main, h('section', { class: 'panel', 'data-testid': 'chat-problem' }, h('p', { role: 'alert' }, text)));
    if (offerSignIn) {
      const box = h('div');
      main.appendChild(box);
      renderSignIn(box, 'If this chat is yours, sign in to open it.');
    }
  };

  function modelLabel(id: string): string {
    return modelLabels.get(id) ?? id;
  }

  function build(): void {
    if (failed || !chat || !messages) return;
    const isOwner = uid !== null && chat.owner === uid;
    if (isOwner && !privWatched) {
      privWatched = true;
      cleanups.push(watchChatPrivate(chatId, (p) => { priv = p; build(); }, () => { priv = null; build(); }));
    }
    // The owner's citations need their card list: wait for it rather than render them as a visitor's.
    if (isOwner && priv === undefined) return;
    if (!header) {
      header = new ChatHeader(isOwner, modelLabel);
      composer = isOwner ? new Composer(chatId) : null;
      replaceChildren(main, header.el, transcript, composer?.el ?? null);
    }
    header.render(chat, priv ?? null);
    const ids = priv ? priv.card_ids : publicCitationIds(chat.public_citations);
    const key = ids.join('\n');
    if (!render || key !== renderKey) {
      render = markdownRenderer(ids);
      renderKey = key;
    }
    renderMessages();
  }

  function renderMessages(): void {
    if (!messages || !render) return;
    const now = Date.now();
    if (!messages.length) {
      seenMessages = true; // whatever arrives next arrives while the reader watches
      replaceChildren(transcript, h('p', { class: 'muted', role: 'status', 'data-testid': 'chat-preparing' },
        h('span', { class: 'spinner', 'aria-hidden': 'true' }), ' Preparing your chat…'));
      composer?.setAnswering(true);
      return;
    }
    const seen = new Set<string>();
    // Views keep their context: `render` is looked up at each use, so a changed card list applies.
    const ctx = { chatId, render: (md: string) => render?.(md) ?? '', readOnly: !composer, grew: () => follower.contentChanged() };
    let previous: Element | null = null;
    const firstLoad = views.size === 0 && !seenMessages;
    seenMessages = true;
    for (const m of messages) {
      seen.add(m.id);
      let view = views.get(m.id);
      if (!view) {
        view = new MessageView(m, ctx, !firstLoad || preparing);
        views.set(m.id, view);
      }
      // Keep DOM order equal to message_index order without re-inserting unchanged nodes.
      const want: Element | null = previous ? previous.nextElementSibling : transcript.firstElementChild;
      if (want !== view.el) transcript.insertBefore(view.el, want);
      view.update(m, messagePhase(m, now));
      previous = view.el;
    }
    for (const [id, view] of views) {
      if (!seen.has(id)) {
        view.dispose();
        view.el.remove();
        views.delete(id);
      }
    }
    while (previous?.nextElementSibling) previous.nextElementSibling.remove();
    composer?.setAnswering(answerInProgress(messages, now));
    follower.contentChanged();
    scheduleStallCheck(now);
  }

  // A live answer whose lease lapses turns into "stalled" with nothing
  // changing in Firestore, so the view re-evaluates when the lease runs out.
  function scheduleStallCheck(now: number): void {
    clearTimeout(stallTimer);
    const waits = (messages ?? []).map((m) => msUntilStall(m, now)).filter((w): w is number => w !== null);
    if (waits.length) stallTimer = setTimeout(renderMessages, Math.min(...waits) + 250);
  }

  cleanups.push(watchChat(
    chatId,
    (c) => {
      if (!c) {
        showProblem('This chat does not exist. It may have been deleted.', false);
        return;
      }
      chat = c;
      build();
    },
    (err) => {
      if (errorCode(err) === 'permission-denied') {
        showProblem(uid ? 'This chat is not shared with you.' : 'This chat is not published.', !uid);
      } else {
        showProblem(`Could not load the chat: ${describeError(err)}`, false);
      }
    },
  ));
  cleanups.push(watchMessages(
    chatId,
    (m) => {
      const first = messages === null;
      messages = m;
      build();
      if (first) {
        follower.jumpToBottom();
        composer?.focus();
      }
    },
    (err) => {
      // Access problems are reported once, by the chat document's listener.
      if (errorCode(err) !== 'permission-denied') showProblem(`Could not load the messages: ${describeError(err)}`, false);
    },
  ));

  if (uid) {
    listModels().then((list) => {
      for (const m of list.models) modelLabels.set(m.id, m.offline ? `${m.label} (offline)` : m.label);
      if (chat && header) header.render(chat, priv ?? null);
    }, () => {});
  }

  return () => {
    clearTimeout(stallTimer);
    cleanups.forEach((c) => c());
    views.forEach((v) => v.dispose());
  };
}
