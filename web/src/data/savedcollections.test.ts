import { describe, expect, it } from 'vitest';
import { collectionProblem, LIMITS, type NewCollection } from './savedcollections';

const base: NewCollection = { name: 'Sea notes', instructions: '', query: { scope: 'mine', tag: 'sea' }, cardIds: null };

describe('collectionProblem: what the rules would refuse, said before the write', () => {
  it('accepts each field at its limit', () => {
    expect(collectionProblem({ ...base, name: 'n'.repeat(LIMITS.name_max_chars), instructions: 'x'.repeat(LIMITS.instructions_max_chars),
      query: { scope: 'mine', tag: 't'.repeat(LIMITS.tag_max_chars), text: 'w'.repeat(LIMITS.text_max_chars) } })).toBe('');
  });

  it('refuses a blank name, and each field one over its limit', () => {
    expect(collectionProblem({ ...base, name: '  ' })).toMatch(/name/);
    expect(collectionProblem({ ...base, name: 'n'.repeat(LIMITS.name_max_chars + 1) })).toMatch(/name/);
    expect(collectionProblem({ ...base, instructions: 'x'.repeat(LIMITS.instructions_max_chars + 1) })).toMatch(/Instructions/);
    expect(collectionProblem({ ...base, query: { tag: 't'.repeat(LIMITS.tag_max_chars + 1) } })).toMatch(/tag/);
    expect(collectionProblem({ ...base, query: { text: 'w'.repeat(LIMITS.text_max_chars + 1) } })).toMatch(/search text/);
  });

  it('refuses a collection of no card', () => {
    expect(collectionProblem({ ...base, query: null, cardIds: [] })).toMatch(/no cards/);
  });
});
