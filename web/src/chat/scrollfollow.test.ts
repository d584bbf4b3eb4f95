// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { isNearBottom, ScrollFollower } from './scrollfollow';

describe('isNearBottom', () => {
  it('allows a little slack', () => {
    expect(isNearBottom({ scrollTop: 560, clientHeight: 400, scrollHeight: 1000 })).toBe(true);
    expect(isNearBottom({ scrollTop: 500, clientHeight: 400, scrollHeight: 1000 })).toBe(false);
  });
});

function fakeScroller(): HTMLElement & { height: number } {
  const el = document.createElement('div') as unknown as HTMLElement & { height: number };
  el.height = 1000;
  let top = 0;
  Object.defineProperty(el, 'clientHeight', { get: () => 400 });
  Object.defineProperty(el, 'scrollHeight', { get: () => el.height });
  Object.defineProperty(el, 'scrollTop', {
    get: () => top,
    set: (v: number) => {
      top = Math.max(0, Math.min(v, el.height - 400));
    },
  });
  return el;
}

describe('ScrollFollower', () => {
  it('follows new content, stops when the reader scrolls up, resumes at the bottom', () => {
    const el = fakeScroller();
    const f = new ScrollFollower(el);
    f.contentChanged();
    el.dispatchEvent(new Event('scroll'));
    expect(el.scrollTop).toBe(600);
    expect(f.following).toBe(true);

    el.scrollTop = 100; // the reader scrolls up
    el.dispatchEvent(new Event('scroll'));
    expect(f.following).toBe(false);
    el.height = 1500;
    f.contentChanged();
    expect(el.scrollTop).toBe(100);

    el.scrollTop = 1100; // back at the bottom
    el.dispatchEvent(new Event('scroll'));
    expect(f.following).toBe(true);
    el.height = 2000;
    f.contentChanged();
    expect(el.scrollTop).toBe(1600);
  });
});
