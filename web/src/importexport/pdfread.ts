// Reading a picked PDF with pdfjs-dist: each page's text layer and the
// outline's headings with their pages, then pdfplan.ts decides the cards.
// This module, pdfjs and its worker are loaded only when a PDF is picked
// (importparse.ts imports this module dynamically); the worker is a file
// Vite bundles and serves from our own origin, and pdfjs is given no URL to
// fetch anything else from (no CMaps, no fonts: text extraction needs neither).
import type { PDFDocumentProxy } from 'pdfjs-dist';
import type { TextItem } from 'pdfjs-dist/types/src/display/api';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { planPdf, type ParsedPdf, type PdfHeading } from './pdfplan';
import { ZIP_LIMITS } from './importparse';
import type { ReadResult, SourceFile } from './importparse';

/** The part of pdfjs this module uses: the app's build (loadPdfjs), or the tests' Node build. */
export interface Pdfjs {
  getDocument: typeof import('pdfjs-dist').getDocument;
}

/** pdfjs and its worker, from our own origin. */
export async function loadPdfjs(): Promise<Pdfjs> {
  const pdfjs = await import('pdfjs-dist');
  pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;
  return pdfjs;
}

// pdfjs's VerbosityLevel.ERRORS: without font data it warns on every page, and a warning is no problem of the file's.
const QUIET = 0;

const size = (n: number) => `${n.toLocaleString('en')} bytes`;

/** One page's text: its items in the content's order, a line break where pdfjs saw one. */
async function pageText(doc: PDFDocumentProxy, page: number): Promise<string> {
  const content = await (await doc.getPage(page)).getTextContent();
  return content.items
    .filter((item): item is TextItem => 'str' in item)
    .map((item) => item.str + (item.hasEOL ? '\n' : ''))
    .join('')
    .replace(/[ \t]+\n/g, '\n');
}

/** The text of every page, stopping, like a .zip, once it passes the limit of text a whole import may hold. */
async function allText(doc: PDFDocumentProxy): Promise<string[]> {
  const pages: string[] = [];
  let total = 0;
  for (let p = 1; p <= doc.numPages; p++) {
    const text = await pageText(doc, p);
    total += new TextEncoder().encode(text).length;
    if (total > ZIP_LIMITS.totalBytes) throw new Error(`the PDF holds more than ${size(ZIP_LIMITS.totalBytes)} of text; import it in parts`);
    pages.push(text);
  }
  return pages;
}

async function destinationPage(doc: PDFDocumentProxy, dest: string | unknown[] | null): Promise<number | null> {
  const explicit = typeof dest === 'string' ? await doc.getDestination(dest) : dest;
  const target = explicit?.[0];
  if (typeof target === 'number') return target + 1;
  if (!target || typeof target !== 'object') return null;
  return (await doc.getPageIndex(target as { num: number; gen: number })) + 1;
}

type OutlineItem = Awaited<ReturnType<PDFDocumentProxy['getOutline']>>[number];

/** Every outline entry, depth first (the reading order), with the page its destination names. */
async function headings(doc: PDFDocumentProxy, items: readonly OutlineItem[] | null): Promise<PdfHeading[]> {
  const out: PdfHeading[] = [];
  for (const item of items ?? []) {
    const page = await destinationPage(doc, item.dest).catch(() => null);
    if (page !== null) out.push({ title: item.title, page });
    out.push(...await headings(doc, item.items));
  }
  return out;
}

/** Why pdfjs could not open `file`, in the user's words. */
function unreadable(err: unknown): string {
  const name = (err as { name?: string } | null)?.name;
  if (name === 'PasswordException') return 'protected by a password: not imported';
  return `not a readable PDF: ${(err as Error)?.message ?? String(err)}`;
}

/** What `pdf` reads as, before planning: the text of its pages and its outline. */
export async function parsePdf(pdf: SourceFile, pdfjs: Pdfjs): Promise<ParsedPdf | string> {
  let doc: PDFDocumentProxy;
  try {
    // a copy: pdfjs hands the buffer to its worker, and the caller's bytes stay readable
    doc = await pdfjs.getDocument({
      data: pdf.bytes.slice(), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: QUIET,
    }).promise;
  } catch (err) {
    return unreadable(err);
  }
  try {
    return { name: pdf.path, pages: await allText(doc), outline: await headings(doc, await doc.getOutline()) };
  } finally {
    void doc.destroy();
  }
}

/** The cards of the picked PDFs, each bounded like a .zip: a file over the whole import's limit is not opened. */
export async function readPdfs(files: SourceFile[], pdfjs?: Pdfjs): Promise<ReadResult> {
  const out: ReadResult = { cards: [], problems: [], ignored: 0 };
  for (const file of files) {
    if (file.bytes.length > ZIP_LIMITS.totalBytes) {
      out.problems.push({ where: file.path, why: `too large (${size(file.bytes.length)}; an import reads at most ${size(ZIP_LIMITS.totalBytes)})` });
      continue;
    }
    pdfjs ??= await loadPdfjs();
    const parsed = await parsePdf(file, pdfjs);
    if (typeof parsed === 'string') {
      out.problems.push({ where: file.path, why: parsed });
      continue;
    }
    const planned = planPdf(parsed);
    out.cards.push(...planned.cards);
    out.problems.push(...planned.problems);
  }
  return out;
}
