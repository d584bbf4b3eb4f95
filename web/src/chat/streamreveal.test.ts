import { describe, expect, it } from 'vitest';
import { advance, DEFAULT_PACE, StreamRevealer, wordCut, type FrameScheduler } from './streamreveal';

class FakeFrames implements FrameScheduler {
  t = 0;
  private queue: Array<(t: number) => void> = [];
  request(cb: (t: number) => void): number {
    this.queue.push(cb);
    return this.queue.length;
  }
  cancel(): void {
    this.queue = [];
  }
  now(): number {
    return this.t;
  }
  tick(ms = 16): boolean {
    const q = this.queue;
    this.queue = [];
    this.t += ms;
    q.forEach((cb) => cb(this.t));
    return q.length > 0;
  }
}

describe('advance', () => {
  it('moves at the base rate when there is little backlog', () => {
    const pace = { baseCps: 100, catchUpPerSecond: 0 };
    expect(advance(0, 1000, 100, pace)).toBeCloseTo(10);
  });
  it('catches up proportionally to the backlog', () => {
    const small = advance(0, 100, 16) - 0;
    const big = advance(0, 10_000, 16) - 0;
    expect(big).toBeGreaterThan(small * 10);
    expect(advance(0, 10_000, 16)).toBeLessThan(10_000);
  });
  it('never passes what is available', () => {
    expect(advance(90, 100, 10_000)).toBe(100);
    expect(advance(120, 100, 16)).toBe(100);
  });
});

describe('wordCut', () => {
  it('extends to the end of the current word', () => {
    expect(wordCut('hello world', 2)).toBe(5);
    expect(wordCut('hello world', 5)).toBe(5);
    expect(wordCut('hello world', 0)).toBe(0);
    const long = 'x'.repeat(100);
    expect(wordCut(long, 10)).toBe(10);
  });
});

describe('StreamRevealer', () => {
  it('reveals a burst over many frames, growing monotonically, then reports done', () => {
    const frames = new FakeFrames();
    const shown: string[] = [];
    let done = false;
    const r = new StreamRevealer((v, d) => {
      shown.push(v);
      done = d;
    }, frames, DEFAULT_PACE);
    const text = 'word '.repeat(200);
    r.update(text, false);
    for (let i = 0; i < 10; i++) frames.tick();
    expect(shown.length).toBeGreaterThanOrEqual(5);
    expect(shown.at(-1)!.length).toBeLessThan(text.length);
    r.update(text, true);
    let guard = 0;
    while (frames.tick() && guard++ < 10_000);
    expect(done).toBe(true);
    expect(shown.at(-1)).toBe(text);
    for (let i = 1; i < shown.length; i++) expect(shown[i].startsWith(shown[i - 1])).toBe(true);
  });
  it('idles when caught up and resumes on new text', () => {
    const frames = new FakeFrames();
    const shown: string[] = [];
    const r = new StreamRevealer((v) => shown.push(v), frames);
    r.update('ab', false);
    while (frames.tick());
    expect(shown.at(-1)).toBe('ab');
    expect(r.done).toBe(false);
    r.update('ab cd', false);
    while (frames.tick());
    expect(shown.at(-1)).toBe('ab cd');
  });
  it('finishNow shows the whole text immediately', () => {
    const frames = new FakeFrames();
    const calls: Array<[string, boolean]> = [];
    const r = new StreamRevealer((v, d) => calls.push([v, d]), frames);
    r.update('partial', false);
    r.finishNow('the full answer');
    expect(calls.at(-1)).toEqual(['the full answer', true]);
    expect(frames.tick()).toBe(false);
  });
});
