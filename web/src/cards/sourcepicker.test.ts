import { describe, expect, it } from 'vitest';
import { emptySourceText } from './sourcepicker';

describe('emptySourceText', () => {
  it('says an owner\'s source is empty now, never an error, and leaves the reader\'s own cards to the list', () => {
    expect(emptySourceText({ scope: 'owner', owner: 'bob', tag: null }, false)).toBe('bob has no public cards now.');
    expect(emptySourceText({ scope: 'owner', owner: 'bob', tag: 'git' }, true)).toBe('No public card of bob’s matches this filter.');
    expect(emptySourceText({ scope: 'shared', owner: null, tag: null }, false)).toBe('No cards are shared with you by people you accepted.');
    expect(emptySourceText({ scope: 'shared', owner: null, tag: 'git' }, true)).toBe('No card shared with you matches this filter.');
    expect(emptySourceText({ scope: 'mine', owner: null, tag: null }, false)).toBeNull();
  });
});
