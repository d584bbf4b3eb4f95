import { describe, expect, it } from 'vitest';
import { describeSearch } from './cardsearch';

const card = (id: string) => ({ id, title: id, body: '', owner: 'u', visibility: 'private' as const, viewers: [], tags: [], updated: -1 });

describe('describeSearch', () => {
  it('counts the cards holding a word, and says when only the best are shown', () => {
    expect(describeSearch({ kind: 'results', text: 'rebase', cards: [card('a')], matching: 1 })).toBe('1 card match “rebase”');
    expect(describeSearch({ kind: 'results', text: 'x', cards: [card('a'), card('b')], matching: 0 })).toBe('0 cards match “x” · the best 2 shown');
    expect(describeSearch({ kind: 'results', text: 'git', cards: [card('a'), card('b')], matching: 120 }))
      .toBe('120 cards match “git” · the best 2 shown');
  });

  it('says a failure is a failure, never "no match"', () => {
    expect(describeSearch({ kind: 'error', text: 'x', message: 'Search failed: offline' })).toBe('Search failed: offline');
    expect(describeSearch({ kind: 'searching', text: 'x' })).toBe('Searching for “x”…');
    expect(describeSearch({ kind: 'idle' })).toBe('');
  });
});
