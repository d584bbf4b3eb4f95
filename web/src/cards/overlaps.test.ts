import { describe, expect, it } from 'vitest';
import type { CardDoc } from '../data/shapes';
import { isOutdated, kindLabel, mergedDraft, OUTDATED_TAG, outdatedFields, withOutdated } from './overlaps';

function card(id: string, over: Partial<CardDoc> = {}): CardDoc {
  return { id, title: `Title ${id}`, body: `Body of ${id}.`, owner: 'u1', visibility: 'private', viewers: [], tags: [], updated: 0,
    derived_from: null, ...over };
}

describe('the Review cards page\'s actions', () => {
  it('uses the tag the server leaves out', () => {
    expect(OUTDATED_TAG).toBe('outdated');
  });
  it('names each kind of pair', () => {
    expect(kindLabel('duplicate')).toBe('Near-duplicate');
    expect(kindLabel('may_conflict')).toBe('May conflict');
  });
  it('marks a card outdated once, keeping its tags and text', () => {
    expect(withOutdated(['git'])).toEqual(['git', 'outdated']);
    expect(withOutdated(['outdated', 'git'])).toEqual(['outdated', 'git']);
    const c = card('a', { tags: ['git'], viewers: ['v1'] });
    expect(outdatedFields(c)).toEqual({ title: c.title, body: c.body, visibility: 'private', viewers: ['v1'], tags: ['git', 'outdated'] });
    expect(isOutdated(card('x', { tags: ['outdated'] }))).toBe(true);
    expect(isOutdated(c)).toBe(false);
  });
  it('merges both texts into the first card\'s draft, never the outdated tag', () => {
    const a = card('a', { tags: ['py'], visibility: 'public' });
    const b = card('b', { tags: ['py', 'setup', 'outdated'], viewers: ['v9'] });
    const m = mergedDraft(a, b);
    expect(m.title).toBe('Title a');
    expect(m.body).toBe('Body of a.\n\n---\n\n**Title b**\n\nBody of b.\n');
    expect(m.tags).toEqual(['py', 'setup']);
    expect([m.visibility, m.viewers]).toEqual(['public', []]);
  });
  it('keeps one text when both say the same', () => {
    expect(mergedDraft(card('a'), card('b', { body: ' Body of a. ' })).body).toBe('Body of a.');
  });
});
