// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import type { ChatDoc, ChatPrivateDoc } from '../queries';
import { ChatHeader, othersCardsNotice } from './chatheader';

const chat: ChatDoc = {
  id: 'c1', owner: 'u1', title: 'Tides', model: 'm', created: null, last_updated: null,
  published: false, public_citations: {}, message_count: 2, viewers: [],
};

function priv(cardsByOthers: number): ChatPrivateDoc {
  return {
    background_length: 1000, background_tokens: 900, card_ids: ['a', 'b', 'c', 'd'], card_count_requested: 4,
    cards_unranked: 0, collection: { description: '', configuration: {} }, branched_from: null,
    continued_from: null, cards_considered: 4, cards_packed: 4, cards_cut: 0, context_turns: [],
    cards_by_others: cardsByOthers,
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
