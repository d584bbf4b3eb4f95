import { describe, expect, it } from 'vitest';
import { filterQuery } from './collectionquery';

describe('filterQuery', () => {
  it('describes the whole filtered collection for the server', () => {
    expect(filterQuery({ tag: null, text: '', ids: null })).toEqual({ scope: 'visible' });
    expect(filterQuery({ tag: 'git', text: ' rebase ', ids: null, scope: 'yours' }))
      .toEqual({ scope: 'mine', tag: 'git', text: 'rebase' });
    expect(filterQuery({ tag: null, text: '', ids: null, scope: 'shared' })).toEqual({ scope: 'shared' });
    expect(filterQuery({ tag: null, text: '', ids: null, scope: 'public' })).toEqual({ scope: 'public' });
  });

  it('leaves an explicit id list to ids', () => {
    expect(filterQuery({ tag: 'git', text: '', ids: ['a', 'b'] })).toBeNull();
  });
});
