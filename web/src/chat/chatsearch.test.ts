// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { chatPath, collectionPath, parseRoute } from '../app/router';
import { collectionProblem, LIMITS } from '../data/savedcollections';
import { markedPassage } from './chatsearch';

const text = (parts: Array<string | HTMLElement>) => parts.map((p) => (typeof p === 'string' ? p : `[${p.textContent}]`)).join('');

describe('markedPassage', () => {
  it('marks each match, in order, and keeps the rest as text', () => {
    expect(text(markedPassage({ passage: '…the keeper winds the clockwork', highlights: [[22, 31], [5, 11]] })))
      .toBe('…the [keeper] winds the [clockwork]');
  });
  it('leaves out a highlight past the passage or overlapping the one before', () => {
    expect(text(markedPassage({ passage: 'tide', highlights: [[0, 4], [2, 3], [3, 9]] }))).toBe('[tide]');
  });
});

describe('routes of collections and search hits', () => {
  it('opens a collection, the list, and a chat at a message', () => {
    expect(parseRoute('/collections', '')).toEqual({ name: 'collections' });
    expect(parseRoute(collectionPath('a b'), '')).toEqual({ name: 'collection', id: 'a b' });
    expect(chatPath('c1', 4)).toBe('/chat/c1?m=4');
    expect(chatPath('c1', null)).toBe('/chat/c1');
  });
});

describe('collectionProblem', () => {
  const ok = { name: 'Sea', instructions: '', query: { scope: 'mine' as const }, cardIds: null };
  it('says what the rules would refuse', () => {
    expect(collectionProblem(ok)).toBe('');
    expect(collectionProblem({ ...ok, name: ' ' })).toMatch(/name/);
    expect(collectionProblem({ ...ok, instructions: 'x'.repeat(LIMITS.instructions_max_chars + 1) })).toMatch(/Instructions/);
    expect(collectionProblem({ ...ok, query: null, cardIds: [] })).toMatch(/no cards/);
    expect(collectionProblem({ ...ok, query: null, cardIds: Array(LIMITS.card_ids_max + 1).fill('c') })).toMatch(/at most/);
  });
});
