import { describe, expect, it } from 'vitest';
import rule from '../../../common/claims.json';
import { ANYWAY, anywayQuestion, coverageNotice, parseCoverage, rememberStart, takeStart } from './coverage';

function memoryStore(): Storage {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k), clear: () => m.clear(), key: () => null, get length() { return m.size; },
  };
}

describe('coverageNotice', () => {
  it('says nothing of a covered answer, or of one stored before coverage', () => {
    expect(coverageNotice('covered', true)).toBeNull();
    expect(coverageNotice(null, true)).toBeNull();
  });
  it('says plainly when the cards do not cover the question, with the owner’s actions', () => {
    const n = coverageNotice('none', true)!;
    expect(n.text).toMatch(/don’t seem to cover/);
    expect(n.actions).toEqual(['widen', 'raise', 'anyway']);
    expect(coverageNotice('partial', true)!.actions).toEqual(['widen', 'raise']);
  });
  it('shows a visitor the same words and no action', () => {
    expect(coverageNotice('none', false)).toEqual({ ...coverageNotice('none', true)!, actions: [] });
    expect(coverageNotice('partial', false)!.actions).toEqual([]);
  });
});

describe('the shared values', () => {
  it('parses only the server’s values', () => {
    for (const v of rule.coverage.values) expect(parseCoverage(v)).toBe(v);
    expect(parseCoverage('maybe')).toBeNull();
    expect(parseCoverage(undefined)).toBeNull();
  });
  it('marks an ask-anyway question once', () => {
    expect(anywayQuestion(' Why tides? ')).toBe(`${ANYWAY} Why tides?`);
    expect(anywayQuestion(anywayQuestion('Why tides?'))).toBe(`${ANYWAY} Why tides?`);
  });
});

describe('a start from a notice', () => {
  it('is taken once, without the ask-anyway mark', () => {
    const store = memoryStore();
    rememberStart({ question: `${ANYWAY} Why tides?`, percent: 90 }, store);
    expect(takeStart(store)).toEqual({ question: 'Why tides?', percent: 90 });
    expect(takeStart(store)).toBeNull();
  });
  it('ignores what it did not write', () => {
    const store = memoryStore();
    store.setItem('cardchat.pendingStart', '{not json');
    expect(takeStart(store)).toBeNull();
  });
});
