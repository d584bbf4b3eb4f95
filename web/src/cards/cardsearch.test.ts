import { describe, expect, it } from 'vitest';
import { describeSearch } from './cardsearch';

describe('describeSearch', () => {
  it('says how many cards hold a word, and when the list is only the best of them', () => {
    expect(describeSearch('rebase', 1, 1)).toBe('1 card match “rebase”');
    expect(describeSearch('x', 0, 2)).toBe('0 cards match “x” · the best 2 shown');
    expect(describeSearch('git', 120, 50)).toBe('120 cards match “git” · the best 50 shown');
  });
});
