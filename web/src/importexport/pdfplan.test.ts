import { describe, expect, it } from 'vitest';
import { CARD_LIMITS } from '../generated/cardlimits';
import { NO_TEXT_LAYER, pdfCardTitle, planPdf } from './pdfplan';

const titles = (r: ReturnType<typeof planPdf>) => r.cards.map((c) => c.fields.title);

describe('a PDF with an outline', () => {
  const pages = ['Cover', 'Intro text', 'Method text', 'More method', 'Results text'];
  const outline = [
    { title: 'Introduction', page: 2 },
    { title: 'Method', page: 3 },
    { title: 'Results', page: 5 },
  ];

  it('is a card a section, from its page to the next one\'s, titled with its heading and page', () => {
    const r = planPdf({ name: 'docs/Report.pdf', pages, outline });
    expect(titles(r)).toEqual([
      'Report.pdf — p. 1', 'Report.pdf — Introduction (p. 2)', 'Report.pdf — Method (p. 3)', 'Report.pdf — Results (p. 5)',
    ]);
    expect(r.cards[2].fields.body).toBe('Method text\n\nMore method');
    expect(r.cards.map((c) => c.key)).toEqual(['docs/Report.pdf#p1', 'docs/Report.pdf#s2', 'docs/Report.pdf#s3', 'docs/Report.pdf#s5']);
    expect(r.problems).toEqual([]);
  });

  it('folds headings that start on the same page into the first, and drops those naming no page of it', () => {
    const r = planPdf({
      name: 'R.pdf', pages,
      outline: [{ title: 'Results', page: 5 }, { title: 'Method', page: 3 }, { title: 'Steps', page: 3 }, { title: 'Gone', page: 9 }, { title: ' ', page: 1 }],
    });
    expect(titles(r)).toEqual(['R.pdf — p. 1', 'R.pdf — p. 2', 'R.pdf — Method (p. 3)', 'R.pdf — Results (p. 5)']);
  });

  it('splits a section too long for one card into its pages, each still naming the section', () => {
    const half = 'x'.repeat(CARD_LIMITS.body_max_bytes / 2 + 1);
    const r = planPdf({ name: 'R.pdf', pages: [half, half, 'end'], outline: [{ title: 'All', page: 1 }, { title: 'End', page: 3 }] });
    expect(titles(r)).toEqual(['R.pdf — All (p. 1)', 'R.pdf — All (p. 2)', 'R.pdf — End (p. 3)']);
    expect(r.cards.map((c) => c.key)).toEqual(['R.pdf#s1', 'R.pdf#p2', 'R.pdf#s3']);
  });
});

describe('a PDF without an outline', () => {
  it('is a card a page, pages without text left out', () => {
    const r = planPdf({ name: 'Pages.pdf', pages: ['one', '  \n', 'three'], outline: [] });
    expect(titles(r)).toEqual(['Pages.pdf — p. 1', 'Pages.pdf — p. 3']);
    expect(r.cards.map((c) => c.fields.body)).toEqual(['one', 'three']);
  });

  it('with no text on any page is reported, and nothing is imported', () => {
    const r = planPdf({ name: 'Scan.pdf', pages: ['', ' \n '], outline: [{ title: 'Chapter', page: 1 }] });
    expect(r.cards).toEqual([]);
    expect(r.problems).toEqual([{ where: 'Scan.pdf', why: NO_TEXT_LAYER }]);
    expect(NO_TEXT_LAYER).toMatch(/^no text layer: nothing imported/);
  });
});

it('a long heading is cut so that the title stays within the card limit and keeps its page', () => {
  const title = pdfCardTitle('Report.pdf', 'h'.repeat(400), 12);
  expect(title.length).toBe(CARD_LIMITS.title_max_chars);
  expect(title.endsWith('… (p. 12)')).toBe(true);
});
