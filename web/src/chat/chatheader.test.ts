// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { ChatHeader, othersCardsNotice } from './chatheader';
import { cardsChangedText } from './cardschanged';
import type { ChatDoc, ChatPrivateDoc } from '../data/shapes';

const chat: ChatDoc = {
  id: 'c1', owner: 'u1', title: 'Tides', model: 'm', created: null, last_updated: null,
  published: false, look_further: false, public_citations: {}, message_count: 2,
};

function priv(cardsByOthers: number, cardsChanged = 0): ChatPrivateDoc {
  return {
    background_length: 1000, background_tokens: 900, card_ids: ['a', 'b', 'c', 'd'], card_count_requested: 4,
    cards_unranked: 0, collection: { description: '', configuration: {} }, branched_from: null,
    continued_from: null, cards_considered: 4, cards_packed: 4, cards_cut: 0, context_turns: [],
    cards_by_others: cardsByOthers,
    collection_id: null,
    collection_query: null, pinned_cards: [], excluded_cards: [],
    cards_changed: cardsChanged,
  };
}

function notice(isOwner: boolean, p: ChatPrivateDoc | null, published = false): string | null {
  const header = new ChatHeader(isOwner, (id) => id, 'u1');
  header.render({ ...chat, published }, p);
  return header.el.querySelector('[data-testid=others-cards-notice]')?.textContent ?? null;
}

describe('the publish control', () => {
  it("says how many of the background's cards are other people's, before and after publishing", () => {
    const three = "This chat's background includes 3 cards by other people; publishing shares answers drawn from them.";
    expect(notice(true, priv(3))).toBe(three);
    expect(notice(true, priv(3), true)).toBe(three);
    expect(notice(true, priv(1))).toBe(
      "This chat's background includes 1 card by another person; publishing shares answers drawn from it.");
  });
  it('says nothing when every card is the owner\'s, or before chat_private has answered', () => {
    expect(notice(true, priv(0))).toBeNull();
    expect(notice(true, null)).toBeNull();
    expect(othersCardsNotice(0)).toBe('');
  });
  it('is never shown to a reader who is not the owner', () => {
    expect(notice(false, priv(3), true)).toBeNull();
  });
});

describe('whom the chat is shared with', () => {
  const text = (header: ChatHeader, id: string) => header.el.querySelector(`[data-testid=${id}]`)?.textContent ?? null;

  it("shows the owner how many people, from the chat's viewer docs", () => {
    const header = new ChatHeader(true, (id) => id, 'u1');
    header.render(chat, priv(0));
    expect(text(header, 'share-chat')).toBe('Share…');
    header.setViewerCount(2);
    expect(text(header, 'share-chat')).toBe('Shared with 2…');
  });
  it('tells a reader whether it is shared with them once their own viewer doc answers', () => {
    const header = new ChatHeader(false, (id) => id, 'u2');
    header.render({ ...chat, published: true }, null);
    expect(text(header, 'read-only-note')).toMatch(/^Read-only\./);
    header.setSharedWithReader(true);
    expect(text(header, 'read-only-note')).toMatch(/^Shared with you: read-only\./);
    header.setSharedWithReader(false);
    expect(text(header, 'read-only-note')).toMatch(/^A published chat: read-only\./);
  });
  it('tells a signed-out visitor it is a published chat', () => {
    const header = new ChatHeader(false, (id) => id, null);
    header.render({ ...chat, published: true }, null);
    expect(text(header, 'read-only-note')).toMatch(/^A published chat: read-only\./);
  });
});

describe('the cards changed since the chat started', () => {
  const line = (isOwner: boolean, p: ChatPrivateDoc | null) => {
    const header = new ChatHeader(isOwner, (id) => id, 'u1');
    header.render(chat, p);
    return header.el.querySelector('[data-testid=cards-changed]')?.textContent ?? null;
  };

  it("tells the owner how many of the background's cards were edited since", () => {
    expect(line(true, priv(0, 3))).toBe('3 cards changed since this chat started');
    expect(line(true, priv(0, 1))).toBe('1 card changed since this chat started');
    expect(cardsChangedText(1200)).toBe('1,200 cards changed since this chat started');
  });
  it('says nothing when none changed, or before chat_private has answered', () => {
    expect(line(true, priv(0, 0))).toBeNull();
    expect(line(true, null)).toBeNull();
    expect(cardsChangedText(Number.NaN)).toBe('');
  });
  it('has nothing to show a reader who is not the owner, who never reads chat_private', () => {
    expect(line(false, null)).toBeNull();
  });
});

describe('the look-further switch', () => {
  const toggle = (header: ChatHeader) => header.el.querySelector<HTMLInputElement>('[data-testid=look-further-toggle]');

  it("shows the owner the chat's setting", () => {
    const header = new ChatHeader(true, (id) => id, 'u1');
    header.render(chat, priv(0));
    expect(toggle(header)?.checked).toBe(false);
    header.render({ ...chat, look_further: true }, priv(0));
    expect(toggle(header)?.checked).toBe(true);
  });
  it('is never shown to a reader who is not the owner', () => {
    const header = new ChatHeader(false, (id) => id, 'u2');
    header.render({ ...chat, published: true, look_further: true }, null);
    expect(toggle(header)).toBeNull();
  });
});
