import { describe, expect, it } from 'vitest';
import table from '../../../common/card_validity_cases.json';
import { cardProblems } from './cardvalidity';

function expand(value: unknown): unknown {
  if (typeof value === 'string' && value.startsWith('repeat:')) {
    const [, char, n] = value.split(':');
    return char.repeat(Number(n));
  }
  if (Array.isArray(value) && value[0] === 'repeat') {
    return Array.from({ length: Number(value[2]) }, (_, i) => `${value[1]}${i}`);
  }
  return Array.isArray(value) ? value.map(expand) : value;
}

describe('the shared definition of a valid card (common/card_validity_cases.json)', () => {
  for (const c of table.cases) {
    it(`${JSON.stringify(c.change).slice(0, 60)}: ${c.bad ?? 'valid'}`, () => {
      const change = Object.fromEntries(Object.entries(c.change).map(([k, v]) => [k, expand(v)]));
      const bad = cardProblems({ ...table.base, ...change }).map((p) => p.field);
      expect(bad).toEqual(c.bad ? [c.bad] : []);
    });
  }
});
