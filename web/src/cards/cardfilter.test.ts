import { describe, expect, it } from 'vitest';
import { cardRelation, describeCollection, filterCards, parseIdList, parseScope, type CardFilter } from './cardfilter';
import type { CardDoc } from '../data/shapes';

function card(id: string, title: string, body = '', tags: string[] = []): CardDoc {
  return { id, title, body, owner: 'u', visibility: 'public', viewers: [], tags, updated: 0, derived_from: null };
}

const a = card('a', 'Rebasing', 'git rebase rewrites commits', ['git', 'history']);
const b = card('b', 'Merging', 'git merge joins histories', ['git']);
const c = card('c', 'Bisect', 'find the bad commit', ['debug']);

describe('filterCards', () => {
  it('filters by tag and by every word of the text', () => {
    expect(filterCards([a, b, c], { tag: 'git', text: '', ids: null }, 'u').map((x) => x.id)).toEqual(['a', 'b']);
    expect(filterCards([a, b, c], { tag: null, text: 'GIT rewrites', ids: null }, 'u').map((x) => x.id)).toEqual(['a']);
    expect(filterCards([a, b, c], { tag: 'debug', text: 'rebase', ids: null }, 'u')).toEqual([]);
  });
  it('restricts to an explicit id list in its order, skipping unknown ids', () => {
    expect(filterCards([a, b, c], { tag: null, text: '', ids: ['c', 'zzz', 'a'] }).map((x) => x.id)).toEqual(['c', 'a']);
  });
});

describe('helpers', () => {
  it('describes the collection', () => {
    expect(describeCollection({ tag: 'git', text: 'rebase', ids: null }, null)).toBe('My own cards with tag “git”, matching “rebase”');
    expect(describeCollection({ tag: null, text: '', ids: null }, 3)).toBe('3 selected from: My own cards');
  });
  it('parses id lists', () => {
    expect(parseIdList('a, b,,a')).toEqual(['a', 'b']);
    expect(parseIdList('')).toBeNull();
    expect(parseIdList(null)).toBeNull();
  });
});

describe('whose cards', () => {
  const mine = { ...card('m', 'Mine'), owner: 'me', visibility: 'private' as const };
  const shared = { ...card('s', 'Shared'), owner: 'bob', visibility: 'private' as const, viewers: ['me'] };
  const hidden = { ...card('h', 'Hidden'), owner: 'dave', visibility: 'private' as const, viewers: ['me'] };
  const pub = { ...card('p', 'Public'), owner: 'bob' };
  const strangers = { ...card('x', 'Stranger'), owner: 'eve' };
  const myPublic = { ...card('mp', 'My public'), owner: 'me' };
  const all = [mine, shared, hidden, pub, strangers, myPublic];
  const ids = (f: Partial<CardFilter>) => filterCards(all, { tag: null, text: '', ids: null, ...f }, 'me').map((c) => c.id);
  it('tells mine, shared with me and public apart: my own public card is mine', () => {
    expect([mine, shared, pub, myPublic].map((c) => cardRelation(c, 'me'))).toEqual(['mine', 'shared', 'public', 'mine']);
  });
  it('shows the reader\'s own cards unless told otherwise', () => {
    expect(ids({})).toEqual(['m', 'mp']);
    expect(ids({ scope: null })).toEqual(['m', 'mp']);
    expect(ids({ scope: 'mine' })).toEqual(['m', 'mp']);
  });
  it('shows others\' cards only by a choice: shared by the accepted, one owner\'s public ones', () => {
    expect(ids({ scope: 'shared' })).toEqual([]);
    expect(ids({ scope: 'shared', acceptedSharers: ['bob', 'dave'] })).toEqual(['s', 'h']);
    expect(ids({ scope: 'shared', acceptedSharers: ['bob'] })).toEqual(['s']);
    expect(ids({ scope: 'owner', owner: 'bob' })).toEqual(['p']);
    expect(ids({ scope: 'owner', owner: null })).toEqual([]);
    // an explicit id list is a choice of its own
    expect(ids({ ids: ['x', 'm'] })).toEqual(['x', 'm']);
  });
  it('describes the choice and parses links', () => {
    expect(describeCollection({ tag: 'git', text: '', ids: null, scope: 'shared' }, null)).toBe('Cards shared with me with tag “git”');
    expect(describeCollection({ tag: null, text: '', ids: null }, null)).toBe('My own cards');
    expect(describeCollection({ tag: null, text: '', ids: null, scope: 'owner', owner: 'bob' }, 2)).toBe('2 selected from: bob’s public cards');
    expect(parseScope('shared')).toBe('shared');
    expect(parseScope('yours')).toBe('mine');
    expect(parseScope('public')).toBeNull();
    expect(parseScope('everyone')).toBeNull();
  });
});
