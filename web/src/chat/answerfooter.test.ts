// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { AnswerFooter, searchedText } from './answerfooter';
import type { AnswerUsageDoc, MessageDoc } from '../data/shapes';

const answer = {
  id: 'm1', chat: 'c1', message_index: 1, role: 'assistant', content: 'Tides [1].', status: 'complete',
  model: 'm', usage: { output_tokens: 9 }, timings: { ttft: 0.8, total: 2 }, uncited_claims: 0,
} as MessageDoc;
const usage: AnswerUsageDoc = {
  message: 'm1', input_tokens: 1200, output_tokens: 9, cached_input_tokens: 0, cost_usd: 0.01, estimated: false,
  card_searches: 2,
};

function searches(u: AnswerUsageDoc | null): string | null {
  const footer = new AnswerFooter(false, (id) => id);
  footer.update(answer, null, u);
  return footer.el.querySelector('[data-testid=detail-searches]')?.textContent ?? null;
}

describe("an answer's details", () => {
  it('tell the owner how often the model searched their cards, never what for', () => {
    expect(searches(usage)).toBe('searched your cards 2×');
    expect(searchedText(1)).toBe('searched your cards 1×');
  });
  it('say nothing of searches for an answer without any, or to a reader without the owner\'s usage', () => {
    expect(searches({ ...usage, card_searches: 0 })).toBeNull();
    expect(searches(null)).toBeNull();
  });
});
