// Which cards a PDF becomes, from its text as pdfread.ts extracted it: one a
// section where the PDF has an outline, else one a page. The title names the
// file and the page ("Report.pdf — Introduction (p. 2)", "Report.pdf — p. 4"),
// so a citation's preview, which shows the card's title, says where to look;
// no card field is added for the page. Pure: no pdfjs here, so it is tested
// on any text.
import { CARD_LIMITS } from '../generated/cardlimits';
import type { FileProblem, ReadResult, SourceCard } from './importparse';

/** An outline entry whose destination is a page of the PDF (1-based), in reading order. */
export interface PdfHeading { title: string; page: number }

/** A PDF as read: its file name, each page's text (index 0 is page 1), its outline. */
export interface ParsedPdf { name: string; pages: string[]; outline: PdfHeading[] }

interface Section { heading: string | null; first: number; last: number }

export const NO_TEXT_LAYER = 'no text layer: nothing imported (a scan? run it through OCR first)';

const bytes = (text: string) => new TextEncoder().encode(text).length;

function fileName(path: string): string {
  return path.replace(/^.*\//, '');
}

/**
 * The outline's sections, each from its page to the page before the next
 * one's; the pages before the first section are a page each. Headings on
 * the same page as an earlier one fold into it: a card holds whole pages.
 */
export function sections(pageCount: number, outline: readonly PdfHeading[]): Section[] {
  const starts = outline
    .filter((h) => Number.isInteger(h.page) && h.page >= 1 && h.page <= pageCount && h.title.trim())
    .map((h, i) => ({ ...h, i }))
    .sort((a, b) => a.page - b.page || a.i - b.i)
    .filter((h, i, all) => i === 0 || all[i - 1].page !== h.page);
  if (!starts.length) return Array.from({ length: pageCount }, (_, i) => ({ heading: null, first: i + 1, last: i + 1 }));
  const out: Section[] = [];
  for (let p = 1; p < starts[0].page; p++) out.push({ heading: null, first: p, last: p });
  starts.forEach((h, i) => {
    out.push({ heading: h.title.trim().replace(/\s+/g, ' '), first: h.page, last: (starts[i + 1]?.page ?? pageCount + 1) - 1 });
  });
  return out;
}

/** "Report.pdf — Introduction (p. 2)", or "Report.pdf — p. 4"; a long heading is cut to keep the title valid. */
export function pdfCardTitle(name: string, heading: string | null, page: number): string {
  if (heading === null) return `${name} — p. ${page}`;
  const room = CARD_LIMITS.title_max_chars - `${name} —  (p. ${page})`.length;
  const cut = heading.length > room ? `${heading.slice(0, Math.max(room - 1, 0))}…` : heading;
  return `${name} — ${cut} (p. ${page})`;
}

function card(pdf: ParsedPdf, name: string, heading: string | null, first: number, last: number, key: string): SourceCard | null {
  const body = pdf.pages.slice(first - 1, last).map((t) => t.trim()).filter(Boolean).join('\n\n');
  if (!body) return null;
  const title = pdfCardTitle(name, heading, first);
  return { where: title, key: `${pdf.name}#${key}`, fields: { title, body } };
}

/**
 * A section too long for one card is split into its pages (each titled with
 * the section's heading and its own page); a single page still too long is
 * left for the card validator to report.
 */
function sectionCards(pdf: ParsedPdf, name: string, s: Section): SourceCard[] {
  if (s.heading === null) return [card(pdf, name, null, s.first, s.first, `p${s.first}`)].filter((c) => c !== null);
  const whole = card(pdf, name, s.heading, s.first, s.last, `s${s.first}`);
  if (!whole || s.first === s.last || bytes(whole.fields.body as string) <= CARD_LIMITS.body_max_bytes) return whole ? [whole] : [];
  const pages: SourceCard[] = [];
  for (let p = s.first; p <= s.last; p++) {
    const c = card(pdf, name, s.heading, p, p, p === s.first ? `s${p}` : `p${p}`);
    if (c) pages.push(c);
  }
  return pages;
}

/** The cards of one PDF; a PDF with no text at all is a problem, never cards with empty bodies. */
export function planPdf(pdf: ParsedPdf): ReadResult {
  const problems: FileProblem[] = [];
  if (!pdf.pages.some((t) => t.trim())) {
    problems.push({ where: pdf.name, why: NO_TEXT_LAYER });
    return { cards: [], problems, ignored: 0 };
  }
  const name = fileName(pdf.name);
  const cards = sections(pdf.pages.length, pdf.outline).flatMap((s) => sectionCards(pdf, name, s));
  return { cards, problems, ignored: 0 };
}
