import { describe, expect, it } from 'vitest';
import { filterQuery } from './collectionquery';

describe('filterQuery', () => {
  it('describes the whole filtered collection for the server: the reader\'s own by default', () => {
    expect(filterQuery({ tag: null, text: '', ids: null })).toEqual({ scope: 'mine' });
    expect(filterQuery({ tag: 'git', text: ' rebase ', ids: null, scope: 'mine' }))
      .toEqual({ scope: 'mine', tag: 'git', text: 'rebase' });
    expect(filterQuery({ tag: null, text: '', ids: null, scope: 'shared', acceptedSharers: ['dave'] })).toEqual({ scope: 'shared' });
  });

  it('names the owner of a followed source', () => {
    expect(filterQuery({ tag: 'git', text: '', ids: null, scope: 'owner', owner: 'bob' }))
      .toEqual({ scope: 'owner', owner: 'bob', tag: 'git' });
    expect(filterQuery({ tag: null, text: '', ids: null, scope: 'owner', owner: null })).toBeNull();
  });

  it('leaves an explicit id list to ids', () => {
    expect(filterQuery({ tag: 'git', text: '', ids: ['a', 'b'] })).toBeNull();
  });
});
