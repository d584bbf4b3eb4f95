// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { AnswerSources } from './answersources';

describe('the sources list', () => {
  it('is hidden for an answer that is not complete or cites nothing', () => {
    const list = new AnswerSources();
    list.update(null);
    expect(list.el.hidden).toBe(true);
    list.update([]);
    expect(list.el.hidden).toBe(true);
    expect(list.el.children.length).toBe(0);
  });
  it('lists nothing, and so reads no card, until the reader opens it', () => {
    const list = new AnswerSources();
    list.update([{ n: 1, cardId: 'c1' }, { n: 3, cardId: 'c3' }]);
    expect(list.el.hidden).toBe(false);
    expect(list.el.textContent).toBe('Sources (2 cards)');
    expect(list.el.querySelectorAll('[data-testid=answer-source]')).toHaveLength(0);
  });
  it('says "a card you cannot view" for a card the reader may not view, without reading it', () => {
    const list = new AnswerSources();
    list.update([{ n: 2, cardId: '' }, { n: 5, cardId: '' }]);
    expect(list.el.hidden).toBe(false);
    list.el.open = true;
    list.el.dispatchEvent(new Event('toggle'));
    const items = [...list.el.querySelectorAll('[data-testid=answer-source]')];
    expect(items.map((li) => li.textContent)).toEqual(['[2] A card you cannot view.', '[5] A card you cannot view.']);
    expect(list.el.querySelector('a')).toBeNull();
    list.update(null); // the answer is retried: streaming again
    expect(list.el.hidden).toBe(true);
  });
});
