// The chat's header: what it is built on, and the owner's publish / look further / delete.
// What it is built on (cards, collection, the chat it branched from) is the
// owner's alone: it comes from chat_private, which a visitor never reads.
import { continueChat, deleteChat } from '../data/api';
import { backgroundCardsHref, cardHref } from './citations';
import { pinnedRow, type PinState } from './pincontrols';
import { contextSummary, contextTurns } from './contextwhy';
import { confirmAction } from '../app/confirm';
import { copyText, flash, h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { chatPath, router } from '../app/router';
import { setLookFurther, setPublished } from '../data/publish';
import { cardsChanged } from './cardschanged';
import { chatOrigin } from './chatorigin';
import { openShareDialog } from './sharedialog';
import type { ChatDoc, ChatPrivateDoc } from '../data/shapes';

const fmt = new Intl.NumberFormat('en-US');

export function chatCounts(c: ChatPrivateDoc): string {
  const n = c.card_ids.filter(Boolean).length;
  let s = `${n} card${n === 1 ? '' : 's'} in the background of ${c.card_count_requested} requested`;
  if (c.background_tokens) s += ` · ${fmt.format(c.background_tokens)} tokens`;
  if (c.cards_unranked) s += ` · ${c.cards_unranked} not embedded yet, ranked by keywords alone`;
  return s;
}

/** What the publish control says when the chat's background holds other people's cards ('' when none). */
export function othersCardsNotice(count: number): string {
  if (count <= 0) return '';
  return count === 1
    ? "This chat's background includes 1 card by another person; publishing shares answers drawn from it."
    : `This chat's background includes ${fmt.format(count)} cards by other people; publishing shares answers drawn from them.`;
}

export function shareUrl(chatId: string): string {
  return `${location.origin}/chat/${encodeURIComponent(chatId)}`;
}

export class ChatHeader {
  readonly el = h('header', { class: 'chat-header' });
  private publishBusy = false;
  private publishError = '';
  private lookBusy = false;
  private lookError = '';
  private last: [ChatDoc, ChatPrivateDoc | null] | null = null;
  /** The author chip's name: set once chat_authors answers, null when the reader may not see it. */
  private author: string | null = null;
  /** The owner's: how many people the chat is shared with (their chat_viewers docs). */
  private viewerCount = 0;
  /** A reader's: whether the chat is shared with them (their own chat_viewers doc exists); null until known. */
  private sharedWithReader: boolean | null = null;
  /**
   * What a reader who is not the owner may do with the chat (a viewer, a
   * visitor): kept across renders. "Continue in my own chat" goes here.
   */
  readonly readerActions = h('span', { class: 'reader-actions', 'data-testid': 'reader-actions' });
  /**
   * The owner's actions on the whole chat ("Download transcript"), kept across
   * renders beside Share and Delete, so they never sit over the transcript.
   */
  readonly ownerActions = h('span', { class: 'owner-actions', 'data-testid': 'owner-actions' });

  constructor(
    private readonly isOwner: boolean,
    private readonly modelLabel: (id: string) => string,
    private readonly uid: string | null = null,
    private readonly pins: PinState | null = null,
  ) {}

  setAuthor(name: string | null): void {
    this.author = name;
    if (this.last) this.render(...this.last);
  }

  setViewerCount(n: number): void {
    this.viewerCount = n;
    if (this.last) this.render(...this.last);
  }

  setSharedWithReader(shared: boolean): void {
    this.sharedWithReader = shared;
    if (this.last) this.render(...this.last);
  }

  /** `priv` is the owner's chat_private (null for a visitor, or while missing). */
  render(chat: ChatDoc, priv: ChatPrivateDoc | null): void {
    this.last = [chat, priv];
    document.title = `${chat.title || 'Chat'} · Cardchat`;
    const listToggle = h('button', {
      type: 'button', class: 'small only-narrow', 'data-testid': 'toggle-chat-list', 'aria-controls': 'chat-sidebar',
      onclick: () => document.querySelector('.chat-layout')?.classList.toggle('show-list'),
    }, 'Chats');
    replaceChildren(this.el,
      h('div', { class: 'title-row' },
        this.isOwner ? listToggle : null,
        h('h1', { 'data-testid': 'chat-title' }, chat.title || 'Untitled chat'),
        chat.published ? h('span', { class: 'chip', 'data-testid': 'published-chip' }, 'published') : null,
        this.author ? h('span', { class: 'chip author-chip', 'data-testid': 'author-chip' }, `by ${this.author}`) : null),
      h('p', { class: 'meta' },
        h('span', { 'data-testid': 'chat-model' }, this.modelLabel(chat.model)),
        priv?.collection.description ? [' · ', h('span', { 'data-testid': 'chat-description' }, priv.collection.description)] : null),
      priv ? this.background(chat, priv) : null,
      priv ? cardsChanged(priv.cards_changed) : null,
      priv ? chatOrigin(priv) : null,
      priv?.branched_from
        ? h('p', { class: 'meta', 'data-testid': 'branched-from' }, 'A branch of ',
          h('a', { href: chatPath(priv.branched_from.chat) }, 'an earlier chat'), ', with one question asked differently.')
        : null,
      priv?.continued_from
        ? h('p', { class: 'meta', 'data-testid': 'continued-from' }, 'Continues ',
          h('a', { href: chatPath(priv.continued_from.chat) }, 'a chat shared with you'),
          ', over the cards of it that you may read.')
        : null,
      this.isOwner ? this.ownerControls(chat, priv) : this.readerNote(),
      !this.isOwner && this.uid !== null ? continueButton(chat) : null,
    );
  }

  private readerNote(): HTMLElement {
    const shared = this.uid === null ? false : this.sharedWithReader;
    const note = shared === null ? 'Read-only.' : shared ? 'Shared with you: read-only.' : 'A published chat: read-only.';
    return h('p', { class: 'hint reader-row', 'data-testid': 'read-only-note' }, note, ' ', this.readerActions);
  }

  private background(chat: ChatDoc, priv: ChatPrivateDoc): HTMLElement[] {
    const n = priv.card_ids.filter(Boolean).length;
    return [h('p', { class: 'meta' },
      h('span', { 'data-testid': 'chat-counts' }, chatCounts(priv)), ' · ',
      h('a', { href: backgroundCardsHref(chat.id, priv.card_ids), 'data-testid': 'background-cards-link' },
        `Open the ${n} card${n === 1 ? '' : 's'} in the background`)), ...contextWhy(priv, this.pins)];
  }

  /** The owner's look-further switch: the model may search this chat's cards while it answers. */
  private lookFurtherSwitch(chat: ChatDoc): HTMLElement {
    const toggle = h('input', { type: 'checkbox', id: 'look-further-toggle', 'data-testid': 'look-further-toggle',
      disabled: this.lookBusy });
    toggle.checked = chat.look_further;
    toggle.addEventListener('change', async () => {
      this.lookBusy = true;
      this.lookError = '';
      toggle.disabled = true;
      try {
        await setLookFurther(chat.id, toggle.checked);
      } catch (err) {
        this.lookError = describeError(err, 'Changing the setting');
        toggle.checked = !toggle.checked;
      }
      this.lookBusy = false;
      if (this.last) this.render(...this.last);
    });
    return h('span', { class: 'look-further' },
      h('label', { class: 'switch', for: 'look-further-toggle',
        title: 'Each search costs another call to the model, and the answer starts later' }, toggle,
        h('span', null, 'Look further', h('span', { class: 'wide-only' }, ': the model may search this chat\'s cards'))),
      this.lookError ? h('span', { class: 'error', role: 'alert' }, this.lookError) : null);
  }

  private ownerControls(chat: ChatDoc, priv: ChatPrivateDoc | null): HTMLElement {
    const toggle = h('input', { type: 'checkbox', id: 'publish-toggle', 'data-testid': 'publish-toggle', disabled: this.publishBusy });
    toggle.checked = chat.published;
    toggle.addEventListener('change', async () => {
      this.publishBusy = true;
      this.publishError = '';
      toggle.disabled = true;
      try {
        await setPublished(chat.id, toggle.checked);
      } catch (err) {
        this.publishError = describeError(err, 'Publishing');
        toggle.checked = !toggle.checked;
      }
      this.publishBusy = false;
      // The snapshot may have re-rendered the header meanwhile: render the latest state.
      if (this.last) this.render(...this.last);
    });
    const errorEl = h('span', { class: 'error', role: 'alert' }, this.publishError);
    const link = shareUrl(chat.id);
    const linkBox = h('input', { type: 'text', readonly: true, value: link, 'data-testid': 'share-link', 'aria-label': 'Link to this chat' });
    linkBox.addEventListener('focus', () => linkBox.select());
    const copy = h('button', { type: 'button', class: 'small', 'data-testid': 'copy-link' }, 'Copy link');
    copy.addEventListener('click', async () => flash(copy, (await copyText(link)) ? 'Copied' : 'Select and copy the link'));
    const share = h('button', { type: 'button', class: 'small', 'data-testid': 'share-chat' },
      this.viewerCount ? `Shared with ${this.viewerCount}…` : 'Share…');
    share.addEventListener('click', () => openShareDialog(chat.id));
    const del = h('button', { type: 'button', class: 'small danger', 'data-testid': 'delete-chat' }, 'Delete…');
    del.addEventListener('click', () => confirmDelete(chat));
    const others = othersCardsNotice(priv?.cards_by_others ?? 0);
    return h('div', { class: 'owner-controls' },
      h('label', { class: 'switch', for: 'publish-toggle' }, toggle,
        h('span', null, 'Published', h('span', { class: 'wide-only' }, ': anyone with the link can read it'))),
      chat.published ? h('span', { class: 'share' }, linkBox, copy) : null,
      errorEl,
      this.lookFurtherSwitch(chat),
      h('span', { class: 'spacer' }),
      this.ownerActions,
      share,
      del,
      others ? h('p', { class: 'hint others-notice', 'data-testid': 'others-cards-notice' }, others) : null);
  }
}

/** The owner's "why" (contextwhy.ts): what the context holds, each follow-up's cards, and the
 * owner's pins and exclusions, with their controls (pincontrols.ts). */
function contextWhy(priv: ChatPrivateDoc, pins: PinState | null): HTMLElement[] {
  const summary = contextSummary(priv);
  const turns = contextTurns(priv);
  const pinned = pins ? pinnedRow(priv, pins, cardHref) : null;
  if (!summary && !turns.length && !pinned) return [];
  const why = h('details', { class: 'meta context-why', 'data-testid': 'context-why', open: pins?.whyOpen },
    h('summary', null, summary || 'What the context holds'),
    pinned,
    turns.map((t) => h('p', { 'data-testid': 'context-turn' }, `${t.heading}: `,
      t.cards.flatMap((c) => [h('a', { href: c.href, title: c.title }, c.label), ` (${c.title}) `, pins ? pins.controls(c.cardId) : null]),
      h('span', { class: 'hint' }, t.note))));
  // rendered afresh on every change of chat_private (a pin, say): it stays as the owner left it
  if (pins) why.addEventListener('toggle', () => { pins.whyOpen = why.open; });
  return [why];
}

function confirmDelete(chat: ChatDoc): void {
  confirmAction({
    testid: 'confirm-delete', ids: 'delete', title: 'Delete this chat?',
    text: `“${chat.title || 'Untitled chat'}” and all its messages will be removed. This cannot be undone.`,
    action: 'Delete chat', busy: 'Deleting…', doing: 'Deleting',
    run: async () => {
      await deleteChat({ chat_id: chat.id });
      router.navigate('/chat/', { replace: true });
    },
  });
}

/** "Continue in my own chat": a chat of the reader's own with the transcript so far, its
 * background rebuilt on the server from the cards its answers cite that they may read (continueChat). */
function continueButton(chat: ChatDoc): HTMLElement {
  const error = h('span', { class: 'error', role: 'alert', 'data-testid': 'continue-error' });
  const button = h('button', { type: 'button', 'data-testid': 'continue-chat' }, 'Continue in my own chat');
  button.addEventListener('click', async () => {
    button.disabled = true;
    button.textContent = 'Copying the conversation…';
    error.textContent = '';
    try {
      const { chat_id } = await continueChat({ chat_id: chat.id });
      router.navigate(chatPath(chat_id));
    } catch (err) {
      error.textContent = describeError(err, 'Continuing');
      button.disabled = false;
      button.textContent = 'Continue in my own chat';
    }
  });
  return h('p', { class: 'continue' }, button, ' ', error);
}
