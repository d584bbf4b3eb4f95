// The committed PDFs (tests/fixtures/pdf/make_pdfs.py) read by the real
// pdfjs: its Node build here, the app's build in the browser test
// (web/e2e/importpdf.test.mjs).
import { describe, expect, it } from 'vitest';
import { ZIP_LIMITS } from './importparse';
import { NO_TEXT_LAYER } from './pdfplan';
import { readPdfs, type Pdfjs } from './pdfread';

// The SPA is typed for the browser; these tests run in Node, which reads the fixtures.
const nodeFs = 'node:fs';

async function fixture(name: string): Promise<{ path: string; bytes: Uint8Array }> {
  const fs = (await import(/* @vite-ignore */ nodeFs)) as { readFileSync(path: URL): Uint8Array };
  return { path: name, bytes: new Uint8Array(fs.readFileSync(new URL(`../../../tests/fixtures/pdf/${name}`, import.meta.url))) };
}

async function nodePdfjs(): Promise<Pdfjs> {
  return await import('pdfjs-dist/legacy/build/pdf.mjs') as unknown as Pdfjs;
}

describe('PDFs read by pdfjs', { timeout: 30_000 }, () => {
  it('Report.pdf: a card a section of its outline (nested ones too), the cover a page of its own', async () => {
    const r = await readPdfs([await fixture('Report.pdf')], await nodePdfjs());
    expect(r.problems).toEqual([]);
    expect(r.cards.map((c) => c.fields.title)).toEqual([
      'Report.pdf — p. 1', 'Report.pdf — Introduction (p. 2)', 'Report.pdf — Method (p. 3)', 'Report.pdf — Gauges (p. 4)',
    ]);
    expect(r.cards[0].fields.body).toBe('Harbour Tides\nA report by the pier team');
    expect(r.cards[1].fields.body).toContain('This report looks at the harbour tides.');
  });

  it('Pages.pdf: no outline, a card a page that has text', async () => {
    const r = await readPdfs([await fixture('Pages.pdf')], await nodePdfjs());
    expect(r.cards.map((c) => [c.fields.title, c.fields.body])).toEqual([
      ['Pages.pdf — p. 1', 'The first page speaks of ropes.'],
      ['Pages.pdf — p. 3', 'The third page speaks of knots.'],
    ]);
  });

  it('Scanned.pdf: no text layer is reported, no card made', async () => {
    const r = await readPdfs([await fixture('Scanned.pdf')], await nodePdfjs());
    expect(r).toEqual({ cards: [], problems: [{ where: 'Scanned.pdf', why: NO_TEXT_LAYER }], ignored: 0 });
  });

  it('a file that is not a PDF is reported by name, the other PDFs still read', async () => {
    const broken = { path: 'notes.pdf', bytes: new TextEncoder().encode('# not a PDF') };
    const r = await readPdfs([broken, await fixture('Pages.pdf')], await nodePdfjs());
    expect(r.problems).toEqual([{ where: 'notes.pdf', why: expect.stringMatching(/^not a readable PDF: /) }]);
    expect(r.cards).toHaveLength(2);
  });

  it('a PDF over the limit a .zip may inflate to is refused without being opened', async () => {
    // only its length is looked at: the bytes are never allocated
    const huge = { path: 'huge.pdf', bytes: { length: ZIP_LIMITS.totalBytes + 1 } as Uint8Array };
    const refuse: Pdfjs = { getDocument: () => { throw new Error('opened'); } };
    const r = await readPdfs([huge], refuse);
    expect(r.problems).toEqual([{ where: 'huge.pdf', why: expect.stringMatching(/^too large \(268,435,457 bytes; an import reads at most 268,435,456 bytes\)$/) }]);
  });
});
