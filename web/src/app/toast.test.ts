// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { showToast } from './toast';

const toast = () => document.querySelector('[data-testid=toast]');

describe('a toast', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    toast()?.remove();
    vi.useRealTimers();
  });

  it('goes after its time', () => {
    showToast('Card deleted', { label: 'Undo', run: () => {} }, 6000);
    vi.advanceTimersByTime(5999);
    expect(toast()).not.toBeNull();
    vi.advanceTimersByTime(1);
    expect(toast()).toBeNull();
  });
  it('stays while the pointer is over it, then has the rest of its time', () => {
    showToast('Card deleted', { label: 'Undo', run: () => {} }, 6000);
    vi.advanceTimersByTime(4000);
    toast()!.dispatchEvent(new Event('mouseenter'));
    vi.advanceTimersByTime(60_000);
    expect(toast()).not.toBeNull();
    toast()!.dispatchEvent(new Event('mouseleave'));
    vi.advanceTimersByTime(1999);
    expect(toast()).not.toBeNull();
    vi.advanceTimersByTime(1);
    expect(toast()).toBeNull();
  });
  it('stays while its button holds the focus, even after the pointer leaves', () => {
    let undone = 0;
    showToast('Card deleted', { label: 'Undo', run: () => { undone++; } }, 6000);
    const button = document.querySelector<HTMLButtonElement>('[data-testid=toast-action]')!;
    button.focus();
    toast()!.dispatchEvent(new Event('mouseenter'));
    toast()!.dispatchEvent(new Event('mouseleave'));
    vi.advanceTimersByTime(60_000);
    expect(toast()).not.toBeNull();
    button.click();
    expect([toast(), undone]).toEqual([null, 1]);
  });
});
