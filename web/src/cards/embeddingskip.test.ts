import { describe, expect, it } from 'vitest';
import { OVER_LIMIT_LABEL, progressText, skipNote } from './embeddingskip';

describe('a card over its owner\'s card limit', () => {
  it('says so, with why, for either limit', () => {
    expect(OVER_LIMIT_LABEL).toBe('over your card limit');
    const count = skipNote({ reason: 'card_limit' });
    const rate = skipNote({ reason: 'write_rate' });
    expect(count?.label).toBe('over your card limit');
    expect(rate?.label).toBe('over your card limit');
    expect(count?.detail).toMatch(/more cards than/);
    expect(rate?.detail).toMatch(/one minute/);
  });
  it('says nothing without a record, or for a reason it does not know', () => {
    expect(skipNote(null)).toBeNull();
    expect(skipNote({})).toBeNull();
    expect(skipNote({ reason: 'toString' })).toBeNull();
    expect(skipNote({ reason: 7 })).toBeNull();
  });
  it('counts the skipped beside the embedding progress', () => {
    expect(progressText({ embedded: 3, cards: 5, skipped: 2 })).toBe('embedded 3 / 5 · 2 over your card limit');
    expect(progressText({ embedded: 1200, cards: 5000, skipped: 0 })).toBe('embedded 1,200 / 5,000');
    expect(progressText({ embedded: 5, cards: 5, skipped: 0 })).toBeNull();
  });
});
