import { describe, expect, it } from 'vitest';
import { budgetTokens, clampPercent, describeBudget, formatTokens, modelOptionLabel } from './budget';

describe('budget', () => {
  it('clamps the slider to 10–90 %', () => {
    expect(clampPercent(5)).toBe(10);
    expect(clampPercent(95)).toBe(90);
    expect(clampPercent(NaN)).toBe(50);
    expect(clampPercent(42.4)).toBe(42);
  });
  it('multiplies percentage by the context window', () => {
    expect(budgetTokens(50, 32_768)).toBe(16_384);
    expect(budgetTokens(10, 200_000)).toBe(20_000);
    expect(budgetTokens(90, 1_048_576)).toBe(943_718);
  });
  it('describes the budget readably', () => {
    expect(describeBudget(50, { context_window: 32_768 })).toBe(
      '16,384 of 32,768 tokens (about 12,000 words) for your cards',
    );
    expect(formatTokens(1_000_000)).toBe('1M');
    expect(formatTokens(1_048_576)).toBe('1.0M');
  });
  it('labels the offline answerer as such', () => {
    expect(modelOptionLabel({ label: 'Offline', offline: true, context_window: 32_768 })).toMatch(/offline, extractive/);
    expect(modelOptionLabel({ label: 'GPT', offline: false, context_window: 128_000 })).not.toMatch(/offline/);
  });
});
