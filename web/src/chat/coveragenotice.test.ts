// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { ANYWAY } from './coverage';
import { CoverageNoticeView, type CoverageActions } from './coveragenotice';

function owner(asked: string[]): CoverageActions {
  return { question: (i) => (i === 1 ? 'What is the melting point of tungsten?' : ''), ask: async (c) => { asked.push(c); }, configuration: () => ({}) };
}

const buttons = (v: CoverageNoticeView) => [...v.el.querySelectorAll('button')].map((b) => b.dataset.testid);

describe('CoverageNoticeView', () => {
  it('is hidden under a covered answer', () => {
    const v = new CoverageNoticeView(owner([]));
    v.update('covered', 1);
    expect(v.el.hidden).toBe(true);
  });
  it('gives the owner the actions, and "Ask anyway" posts the question again, marked', async () => {
    const asked: string[] = [];
    const v = new CoverageNoticeView(owner(asked));
    v.update('none', 1);
    expect(v.el.hidden).toBe(false);
    expect(v.el.dataset.coverage).toBe('none');
    expect(buttons(v)).toEqual(['coverage-widen', 'coverage-raise', 'coverage-anyway']);
    v.el.querySelector<HTMLButtonElement>('[data-testid="coverage-anyway"]')!.click();
    await Promise.resolve();
    expect(asked).toEqual([`${ANYWAY} What is the melting point of tungsten?`]);
  });
  it('shows a visitor the notice without any action', () => {
    const v = new CoverageNoticeView(null);
    v.update('partial', 1);
    expect(v.el.hidden).toBe(false);
    expect(v.el.textContent).toMatch(/only in part/);
    expect(buttons(v)).toEqual([]);
  });
});
