import { describe, expect, test } from 'vitest';
import { contextSummary, contextTurns } from './contextwhy';
import type { ChatPrivateDoc } from '../data/shapes';

const base: ChatPrivateDoc = {
  background_length: 1000, background_tokens: 900, card_ids: ['a', 'b', 'c'], card_count_requested: 40,
  cards_unranked: 0, collection: { description: '', configuration: {} }, branched_from: null,
  continued_from: null,
  cards_considered: 1106, cards_packed: 14, cards_cut: 1092, context_turns: [], cards_by_others: 0,
  collection_id: null, collection_query: null, pinned_cards: [], excluded_cards: [], cards_changed: 0,
};

describe('the owner\'s why', () => {
  test('counts what was considered, packed and cut', () => {
    expect(contextSummary(base)).toBe('1,106 cards considered · 14 in the context · 1,092 cut by the budget');
    expect(contextSummary({ ...base, cards_considered: 0 })).toBe('');
  });

  test('lists each follow-up\'s cards with rank and score, each linking to its card', () => {
    const turns = contextTurns({
      ...base,
      context_turns: [
        { message_index: 3, considered: 1106, cut: 2, dropped: [],
          added: [{ card: 'git rebase', n: 15, rank: 1, score: 0.61234, searched: false },
            { card: 'x', n: 16, rank: 4, score: null, searched: true }] },
        { message_index: 5, considered: 1, cut: 0, dropped: [15, 16], added: [] },
      ],
    });
    expect(turns).toEqual([
      {
        heading: 'Question 2 added',
        cards: [
          { label: '[15]', href: '/card/git%20rebase', title: 'rank 1, similarity 0.61', cardId: 'git rebase' },
          { label: '[16]', href: '/card/x', title: 'found by the model\'s search, rank 4, not embedded yet', cardId: 'x' },
        ],
        note: '1,106 cards ranked · 2 more cut by the turn\'s budget',
      },
      { heading: 'Question 3 added no card', cards: [], note: '1 card ranked · 2 earlier additions dropped for room' },
    ]);
  });
});
