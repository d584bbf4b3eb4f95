// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import shared from '../../../common/citation_cases.json';
import {
  answerSources, backgroundCardsHref, chatCitations, citedCardId, CITATION_RE, MAX_IDS_IN_URL, ownerCitations,
  parseCitationNumbers, publicCitationIds, readerCitations, type CitationMap,
} from './citations';
import { markUncited, uncitedIn } from './claims';
import { markdownRenderer } from '../app/markdown';

const render = markdownRenderer();

function dom(markdown: string, cites: CitationMap): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = render(markdown, cites);
  return div;
}

/** The numbers shown as citations: links, or "a card you cannot view". */
function shown(root: Element): number[] {
  return [...root.querySelectorAll('a.cite, .cite-unavailable')].map((el) => Number(el.textContent));
}

// The cases tests/generation/test_claims.py runs on the server's reading of the same answers.
describe('citation integrity (common/citation_cases.json)', () => {
  const ids = shared.card_ids;
  for (const c of shared.cases) {
    it(`the owner: ${c.name}`, () => {
      const cites = ownerCitations(ids);
      const root = dom(c.markdown, cites);
      expect(shown(root)).toEqual(c.links);
      expect(root.querySelectorAll('.cite-unavailable').length).toBe(0);
      expect(answerSources(c.markdown, cites).map((s) => s.n)).toEqual(c.sources);
      const citable = (n: number) => cites.card(n) !== null;
      expect(uncitedIn(root, citable)).toEqual(c.uncited);
      expect(markUncited(root, citable)).toBe(c.uncited.length);
      // what the server stores for the answer reads the same
      expect(shown(dom(c.markdown, ownerCitations(ids, c.sources)))).toEqual(c.links);
    });
    it(`a visitor, with the answer's stored sources: ${c.name}`, () => {
      const cites = readerCitations(['', '', '', 'card-d'], c.sources); // only card 4 is public
      const root = dom(c.markdown, cites);
      expect(shown(root)).toEqual(c.links);
      expect([...root.querySelectorAll('a.cite')].map((a) => a.getAttribute('data-card-id')))
        .toEqual(c.links.filter((n) => n === 4).map(() => 'card-d'));
      expect(answerSources(c.markdown, cites)).toEqual(c.sources.map((n) => ({ n, cardId: n === 4 ? 'card-d' : '' })));
      expect(uncitedIn(root, (n) => cites.card(n) !== null)).toEqual(c.uncited);
    });
  }
});

describe('citations', () => {
  it('recognises single, list and range citations but not links', () => {
    expect(CITATION_RE.exec('[3] rest')?.[0]).toBe('[3]');
    expect(CITATION_RE.exec('[1, 4]')?.[0]).toBe('[1, 4]');
    expect(CITATION_RE.exec('[2–4]')?.[0]).toBe('[2–4]');
    expect(CITATION_RE.exec('see [3]')).toBeNull();
    expect(CITATION_RE.exec('[3](http://x)')).toBeNull();
    expect(CITATION_RE.exec('[3]: http://x')).toBeNull();
    expect(CITATION_RE.exec('[a]')).toBeNull();
  });
  it('expands lists and ranges', () => {
    expect(parseCitationNumbers('[1, 3-5]')).toEqual([1, 3, 4, 5]);
    expect(parseCitationNumbers('[2, 2, 0]')).toEqual([2]);
    expect(parseCitationNumbers('[5-3]')).toEqual([5, 3]);
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
    const html = render('The moon [1][2], and more [3, 4].', chatCitations(null, { 2: 'pub-b', 4: 'pub-d' }).forAnswer(null));
    expect(html).toContain('href="/card/pub-b"');
    expect(html).toContain('href="/card/pub-d"');
    expect(html.match(/<a /g)?.length).toBe(2);
    // the others stay plain numbers, focusable so their preview can say "a card you cannot view"
    expect(html).toContain('<span class="cite-unavailable" tabindex="0">1</span>');
    expect(html.match(/cite-unavailable/g)?.length).toBe(2);
  });
  it('shows a card under its first number only, and each source once', () => {
    const cites = ownerCitations(['a', 'b', 'a']);
    expect([cites.card(1), cites.card(2), cites.card(3)]).toEqual(['a', 'b', null]);
    expect(answerSources('[1] [2, 1] [3] [2-3]', cites)).toEqual([{ n: 1, cardId: 'a' }, { n: 2, cardId: 'b' }]);
    // a visitor's list: two numbers of cards they cannot view are two entries, a public card once
    expect(answerSources('[2] [1] [2][4]', readerCitations(['', 'p', '', 'p'], [2, 1, 4])))
      .toEqual([{ n: 2, cardId: 'p' }, { n: 1, cardId: '' }]);
  });
  it('links the background cards by id, or through the chat when the list is long', () => {
    expect(backgroundCardsHref('c1', ['a', 'b c'])).toBe('/?cards=a,b%20c');
    expect(backgroundCardsHref('c1', ['a', '', 'c'])).toBe('/?cards=a,c');
    const many = Array.from({ length: MAX_IDS_IN_URL + 1 }, (_, i) => `id${i}`);
    expect(backgroundCardsHref('c1', many)).toBe('/?chat=c1');
  });
});
