import { describe, expect, it } from 'vitest';
import { byModel, dayString, formatCost, formatSeconds, formatTokens, lastDays, tokensLine, unpriced, USAGE_DAYS } from './usage';

const doc = (day: string, model: string, answers: number, cost: number) =>
  ({ day, model, answers, input_tokens: 1000 * answers, output_tokens: 100 * answers, cost_usd: cost });

describe('usage figures', () => {
  it('writes dollars, tokens and seconds readably', () => {
    expect(formatCost(0)).toBe('$0');
    expect(formatCost(null)).toBe('unknown');
    expect(formatCost(0.000234)).toBe('$0.00023');
    expect(formatCost(0.0456)).toBe('$0.046');
    expect(formatCost(12.345)).toBe('$12.35');
    expect(formatTokens(1234567)).toBe('1,234,567');
    expect(formatSeconds(0.4567)).toBe('0.46 s');
    expect(formatSeconds(42.26)).toBe('42.3 s');
  });
  it('lays out the last 30 days, oldest first, empty days included', () => {
    const today = new Date('2026-03-14T10:00:00Z');
    const rows = lastDays([doc('2026-03-14', 'gpt-4.1', 2, 0.02), doc('2026-03-14', 'claude', 1, 0.01),
      doc('2026-02-13', 'gpt-4.1', 5, 0.5), doc('2026-02-12', 'gpt-4.1', 9, 9)], today);
    expect(rows).toHaveLength(USAGE_DAYS);
    expect(rows[0].day).toBe('2026-02-13');
    expect(rows[0].answers).toBe(5);
    const last = rows[USAGE_DAYS - 1];
    expect([last.day, last.answers, last.tokens]).toEqual(['2026-03-14', 3, 3300]);
    expect(last.cost_usd).toBeCloseTo(0.03);
    expect(last.models.map((m) => m.model)).toEqual(['claude', 'gpt-4.1']);
    expect(rows.filter((r) => r.answers === 0)).toHaveLength(USAGE_DAYS - 2);
    expect(dayString(today, 29)).toBe('2026-02-13');
  });
  it('totals per model, costliest first', () => {
    const totals = byModel([doc('2026-03-14', 'a', 1, 0.1), doc('2026-03-13', 'b', 1, 0.5), doc('2026-03-12', 'a', 2, 0.1)]);
    expect(totals.map((t) => [t.model, t.answers])).toEqual([['b', 1], ['a', 3]]);
    expect(totals[1].cost_usd).toBeCloseTo(0.2);
  });
});

describe('a model without a known price', () => {
  it('is an OpenAI-compatible endpoint\'s, the user\'s or the deployment\'s', () => {
    expect(unpriced('openai_compatible:llama3.1:8b')).toBe(true);
    expect(unpriced('compatible:gateway:meta-llama/llama-3.3-70b-instruct')).toBe(true);
    expect(unpriced('gpt-4.1')).toBe(false);
    expect(unpriced('offline-extractive')).toBe(false);
  });
});

describe('an answer\'s token counts', () => {
  const usage = { message: 'm', input_tokens: 1200, output_tokens: 40, cached_input_tokens: 0, cost_usd: null, card_searches: 0 };
  it('say when they are the server\'s estimate', () => {
    expect(tokensLine({ ...usage, estimated: true }, '40 out')).toContain('estimated');
    expect(tokensLine({ ...usage, estimated: false }, '40 out')).not.toContain('estimated');
  });
});
