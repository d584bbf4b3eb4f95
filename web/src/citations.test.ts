// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import {
  backgroundCardsHref, citedCardId, CITATION_RE, MAX_IDS_IN_URL, parseCitationNumbers, publicCitationIds,
} from './citations';
import { markdownRenderer } from './markdown';

describe('citations', () => {
  it('recognises single, list and range citations but not links', () => {
    expect(CITATION_RE.exec('[3] rest')?.[1]).toBe('3');
    expect(CITATION_RE.exec('[1, 4]')?.[1]).toBe('1, 4');
    expect(CITATION_RE.exec('[2–4]')?.[1]).toBe('2–4');
    expect(CITATION_RE.exec('[3](http://x)')).toBeNull();
    expect(CITATION_RE.exec('[3]: http://x')).toBeNull();
    expect(CITATION_RE.exec('[a]')).toBeNull();
  });
  it('expands lists and ranges', () => {
    expect(parseCitationNumbers('1, 3-5')).toEqual([1, 3, 4, 5]);
    expect(parseCitationNumbers('2, 2, 0')).toEqual([2]);
    expect(parseCitationNumbers('5-3')).toEqual([5, 3]);
  });
  it('maps [n] to card_ids[n-1] and rejects out-of-range numbers', () => {
    const ids = ['a', 'b', 'c'];
    expect(citedCardId(1, ids)).toBe('a');
    expect(citedCardId(3, ids)).toBe('c');
    expect(citedCardId(4, ids)).toBeNull();
    expect(citedCardId(0, ids)).toBeNull();
  });
  it('gives a visitor links to the public cards only, the others plain', () => {
    const ids = publicCitationIds({ 2: 'pub-b', 4: 'pub-d', x: 'bad', 0: 'bad' });
    expect(ids).toEqual(['', 'pub-b', '', 'pub-d']);
    const html = markdownRenderer(ids)('The moon [1][2], and more [3, 4].');
    expect(html).toContain('href="/card/pub-b"');
    expect(html).toContain('href="/card/pub-d"');
    expect(html.match(/<a /g)?.length).toBe(2);
    // the others stay plain numbers, focusable so their preview can say "a card you cannot view"
    expect(html).toContain('<span class="cite-unavailable" tabindex="0">1</span>');
    expect(html.match(/cite-unavailable/g)?.length).toBe(2);
  });
  it('links the background cards by id, or through the chat when the list is long', () => {
    expect(backgroundCardsHref('c1', ['a', 'b c'])).toBe('/?cards=a,b%20c');
    expect(backgroundCardsHref('c1', ['a', '', 'c'])).toBe('/?cards=a,c');
    const many = Array.from({ length: MAX_IDS_IN_URL + 1 }, (_, i) => `id${i}`);
    expect(backgroundCardsHref('c1', many)).toBe('/?chat=c1');
  });
});
