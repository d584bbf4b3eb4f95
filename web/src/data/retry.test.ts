import { describe, expect, it } from 'vitest';
import { retryDelay } from './retry';

describe('retryDelay', () => {
  it('backs off 1 s, 2 s, 4 s … up to 30 s', () => {
    expect([1, 2, 3, 6, 10].map(retryDelay)).toEqual([1000, 2000, 4000, 30000, 30000]);
  });
});
