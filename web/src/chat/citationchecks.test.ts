// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { markChecks, markedAs, parseCitationChecks, type CitationCheck } from './citationchecks';
import { markUncited } from './claims';
import { ownerCitations } from './citations';
import { markdownRenderer } from '../app/markdown';

const cites = ownerCitations(['card-a', 'card-b', 'card-c']);
const citable = (n: number) => cites.card(n) !== null;

function dom(markdown: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = markdownRenderer()(markdown, cites);
  return div;
}

const ANSWER = [
  'Tides rise and fall twice a day as the moon pulls the sea [1].',
  '',
  'In short:',
  '',
  '- Bakers say bread is best eaten on the day it is baked.',
  '- Tides rise and fall three times a day [2][3]. Sourdough needs a lively starter and a hot oven [3].',
].join('\n');

function marks(root: Element): string[] {
  return Array.from(root.querySelectorAll('a.cite')).map((a) => `${a.textContent}:${markedAs(a) ?? '-'}`);
}

describe('citation checks', () => {
  it('marks each weak or unsupported citation of the claim it indexes, counting claims across blocks', () => {
    const root = dom(ANSWER);
    const text = root.textContent;
    const checks: CitationCheck[] = [
      { sentence: 0, n: 1, verdict: 'supported' },
      { sentence: 2, n: 2, verdict: 'weak' },
      { sentence: 2, n: 3, verdict: 'unsupported' },
      { sentence: 3, n: 3, verdict: 'supported' },
    ];
    markUncited(root, citable); // as an answer is painted: its uncited claim's marker first
    expect(markChecks(root, checks, citable)).toBe(2);
    expect(marks(root)).toEqual(['1:-', '2:cite-weak', '3:cite-unsupported', '3:-']);
    expect(root.textContent).toBe(text); // the marks add no words
  });

  it('marks nothing without checks, or for a claim index that is not there', () => {
    const root = dom(ANSWER);
    expect(markChecks(root, null, citable)).toBe(0);
    expect(markChecks(root, [{ sentence: 7, n: 1, verdict: 'unsupported' }], citable)).toBe(0);
    expect(marks(root)).toEqual(['1:-', '2:-', '3:-', '3:-']);
  });

  it('reads the stored field, dropping what is not a check', () => {
    expect(parseCitationChecks(undefined)).toBeNull();
    expect(parseCitationChecks([{ sentence: 0, n: 1, verdict: 'weak' }, { sentence: 'x', n: 1, verdict: 'weak' },
      { sentence: 1, n: 2, verdict: 'maybe' }, null])).toEqual([{ sentence: 0, n: 1, verdict: 'weak' }]);
  });
});
