// @vitest-environment jsdom
// The shared cases of common/claim_cases.json, on answers rendered as the
// chat renders them (citations as links), as tests/generation/test_claims.py runs them
// on the server's count.
import { describe, expect, it } from 'vitest';
import cases from '../../../common/claim_cases.json';
import { markUncited, uncitedIn } from './claims';
import { ownerCitations } from './citations';
import { markdownRenderer } from '../app/markdown';

const cites = ownerCitations(['card-a', 'card-b', 'card-c', 'card-d']);
const render = (md: string) => markdownRenderer()(md, cites);

function dom(markdown: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = render(markdown);
  return div;
}

describe('uncited claims', () => {
  for (const c of cases.cases) {
    it(c.name, () => {
      expect(uncitedIn(dom(c.markdown))).toEqual(c.uncited);
      const root = dom(c.markdown);
      const text = root.textContent;
      expect(markUncited(root)).toBe(c.uncited.length);
      expect(root.querySelectorAll('.no-source').length).toBe(c.uncited.length);
      expect(root.textContent).toBe(text); // the marker adds no words
    });
  }
  it('puts the marker right after the sentence it is about', () => {
    const root = dom('Tides follow the moon [1]. The sea is always cold in winter. Neap tides are weak [2].');
    expect(markUncited(root)).toBe(1);
    const mark = root.querySelector('.no-source');
    expect(mark?.previousSibling?.textContent?.endsWith('cold in winter.')).toBe(true);
  });
});
