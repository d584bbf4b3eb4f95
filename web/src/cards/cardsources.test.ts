import { describe, expect, it } from 'vitest';
import table from '../../../common/card_sources_cases.json';
import {
  acceptSharer, follow, hideSharer, isFollowed, NO_SOURCES, parseSources, showSharer, SOURCE_LIMITS, sourceLabel, sourcesProblem, unfollow,
} from './cardsources';

const SELF = 'me';

function expand(value: unknown): unknown {
  if (value === '$self') return SELF;
  if (typeof value === 'string' && value.startsWith('repeat:')) {
    const [, char, n] = value.split(':');
    return char.repeat(Number(n));
  }
  if (Array.isArray(value) && value[0] === 'repeat') {
    const item = value[1] as string | { owner: string };
    return Array.from({ length: Number(value[2]) }, (_, i) => (typeof item === 'string' ? `${item}${i}` : { ...item, owner: `${item.owner}${i}` }));
  }
  if (Array.isArray(value)) return value.map(expand);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v)]));
  return value;
}

describe('the shared definition of card sources (common/card_sources_cases.json)', () => {
  for (const c of table.cases) {
    it(`${JSON.stringify(c.change).slice(0, 60)}: ${c.bad ?? 'valid'}`, () => {
      const d = expand(table.base) as Record<string, unknown>;
      for (const [k, v] of Object.entries(c.change)) {
        if (v === '$absent') delete d[k];
        else d[k] = expand(v);
      }
      expect(sourcesProblem(d, SELF)).toBe(c.bad);
    });
  }
});

describe('following owners and hiding sharers', () => {
  it('follows a source once, by owner and tag, and unfollows it', () => {
    const a = follow(NO_SOURCES, { owner: 'bob', tag: 'git' });
    const b = follow(follow(a, { owner: 'bob', tag: 'git' }), { owner: 'bob' });
    expect(b.following).toEqual([{ owner: 'bob', tag: 'git' }, { owner: 'bob' }]);
    expect(isFollowed(b, { owner: 'bob' })).toBe(true);
    expect(unfollow(b, { owner: 'bob', tag: 'git' }).following).toEqual([{ owner: 'bob' }]);
  });

  it('writes no empty tag and refuses a source past the limit', () => {
    expect(follow(NO_SOURCES, { owner: 'bob', tag: '' }).following).toEqual([{ owner: 'bob' }]);
    const full = { ...NO_SOURCES, following: Array.from({ length: SOURCE_LIMITS.following_max }, (_, i) => ({ owner: `u${i}` })) };
    expect(() => follow(full, { owner: 'bob' })).toThrow(/unfollow one first/);
  });

  it('hides a sharer once and shows them again', () => {
    const s = hideSharer(hideSharer(NO_SOURCES, 'dave'), 'dave');
    expect(s.hidden_sharers).toEqual(['dave']);
    expect(showSharer(s, 'dave').hidden_sharers).toEqual([]);
  });

  it('accepts a sharer once; stopping them takes them out of the accepted, accepting again undoes the stop', () => {
    const s = acceptSharer(acceptSharer(NO_SOURCES, 'dave'), 'dave');
    expect(s.accepted_sharers).toEqual(['dave']);
    const stopped = hideSharer(s, 'dave');
    expect(stopped).toEqual({ ...NO_SOURCES, hidden_sharers: ['dave'] });
    expect(sourcesProblem({ owner: SELF, ...stopped }, SELF)).toBeNull();
    expect(acceptSharer(stopped, 'dave')).toEqual({ ...NO_SOURCES, accepted_sharers: ['dave'] });
    const full = { ...NO_SOURCES, accepted_sharers: Array.from({ length: SOURCE_LIMITS.accepted_sharers_max }, (_, i) => `u${i}`) };
    expect(() => acceptSharer(full, 'dave')).toThrow(/stop one first/);
  });

  it('reads a stored document, leaving out what does not fit', () => {
    expect(parseSources(undefined)).toEqual(NO_SOURCES);
    expect(parseSources({ following: [{ owner: 'bob' }, 'x', { tag: 'y' }], hidden_sharers: ['d', 3] }))
      .toEqual({ following: [{ owner: 'bob' }], hidden_sharers: ['d'], accepted_sharers: [] });
    expect(parseSources({ following: [], hidden_sharers: ['d'], accepted_sharers: ['d', 'e', 4] }))
      .toEqual({ following: [], hidden_sharers: ['d'], accepted_sharers: ['e'] });
  });

  it('names a source', () => {
    expect(sourceLabel({ owner: 'bob', tag: 'git' })).toBe('bob’s public cards (tag: git)');
    expect(sourceLabel({ owner: 'bob' })).toBe('bob’s public cards');
  });
});
