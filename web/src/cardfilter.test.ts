import { describe, expect, it } from 'vitest';
import {
  cardScope, describeCollection, filterCards, mergeCards, parseIdList, parseScope, tagCounts, type CardDoc,
} from './cardfilter';

function card(id: string, title: string, body = '', tags: string[] = []): CardDoc {
  return { id, title, body, owner: 'u', visibility: 'public', viewers: [], tags, updated: 0 };
}

const a = card('a', 'Rebasing', 'git rebase rewrites commits', ['git', 'history']);
const b = card('b', 'Merging', 'git merge joins histories', ['git']);
const c = card('c', 'Bisect', 'find the bad commit', ['debug']);

describe('mergeCards', () => {
  it('dedupes cards returned by several queries and sorts by title', () => {
    const merged = mergeCards([a, b], [b, c], [a]);
    expect(merged.map((x) => x.id)).toEqual(['c', 'b', 'a']);
  });
});

describe('filterCards', () => {
  it('filters by tag and by every word of the text', () => {
    expect(filterCards([a, b, c], { tag: 'git', text: '', ids: null }).map((x) => x.id)).toEqual(['a', 'b']);
    expect(filterCards([a, b, c], { tag: null, text: 'GIT rewrites', ids: null }).map((x) => x.id)).toEqual(['a']);
    expect(filterCards([a, b, c], { tag: 'debug', text: 'rebase', ids: null })).toEqual([]);
  });
  it('restricts to an explicit id list in its order, skipping unknown ids', () => {
    expect(filterCards([a, b, c], { tag: null, text: '', ids: ['c', 'zzz', 'a'] }).map((x) => x.id)).toEqual(['c', 'a']);
  });
});

describe('helpers', () => {
  it('counts tags, most used first', () => {
    expect(tagCounts([a, b, c])).toEqual([['git', 2], ['debug', 1], ['history', 1]]);
  });
  it('describes the collection', () => {
    expect(describeCollection({ tag: 'git', text: 'rebase', ids: null }, null)).toBe('Cards with tag “git”, matching “rebase”');
    expect(describeCollection({ tag: null, text: '', ids: null }, 3)).toBe('3 selected from: All my visible cards');
  });
  it('parses id lists', () => {
    expect(parseIdList('a, b,,a')).toEqual(['a', 'b']);
    expect(parseIdList('')).toBeNull();
    expect(parseIdList(null)).toBeNull();
  });
});

describe('whose cards (issue 18)', () => {
  const mine = { ...card('m', 'Mine'), owner: 'me', visibility: 'private' as const };
  const shared = { ...card('s', 'Shared'), owner: 'bob', visibility: 'private' as const, viewers: ['me'] };
  const pub = { ...card('p', 'Public'), owner: 'bob' };
  const myPublic = { ...card('mp', 'My public'), owner: 'me' };
  it('tells yours, shared with you and public apart: your own public card is yours', () => {
    expect([mine, shared, pub, myPublic].map((c) => cardScope(c, 'me'))).toEqual(['yours', 'shared', 'public', 'yours']);
  });
  it('filters on it', () => {
    const all = [mine, shared, pub, myPublic];
    expect(filterCards(all, { tag: null, text: '', ids: null, scope: 'yours' }, 'me').map((c) => c.id)).toEqual(['m', 'mp']);
    expect(filterCards(all, { tag: null, text: '', ids: null, scope: 'shared' }, 'me').map((c) => c.id)).toEqual(['s']);
    expect(filterCards(all, { tag: null, text: '', ids: null, scope: null }, 'me')).toHaveLength(4);
    expect(describeCollection({ tag: 'git', text: '', ids: null, scope: 'shared' }, null)).toBe('Cards shared with me with tag “git”');
    expect(parseScope('public')).toBe('public');
    expect(parseScope('everyone')).toBeNull();
  });
});
