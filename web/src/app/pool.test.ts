import { describe, expect, it } from 'vitest';
import { inPool } from './pool';

describe('inPool', () => {
  it('runs at most `width` at once and keeps the items\' order', async () => {
    let running = 0;
    let widest = 0;
    const out = await inPool([5, 1, 4, 2, 3], 2, async (n) => {
      running++;
      widest = Math.max(widest, running);
      await new Promise((r) => setTimeout(r, n));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(widest).toBe(2);
  });
  it('stops starting work after a failure and rejects with it', async () => {
    const started: number[] = [];
    const run = inPool([1, 2, 3, 4, 5], 1, async (n) => {
      started.push(n);
      if (n === 2) throw new Error('batch 2 refused');
      return n;
    });
    await expect(run).rejects.toThrow('batch 2 refused');
    expect(started).toEqual([1, 2]);
  });
});
