// Reading cards to import in the browser: a folder of Markdown files (from a
// directory picker), a .zip of them (fflate), or a JSON export
// ({"cards": [...]}, what exportcards.ts writes and the CLI importer reads).
// PDFs are pdfread.ts's, loaded only when one is picked (importpage.ts).
// Front matter (title, tags, visibility, viewers, id) is YAML, read by the
// front-matter library. Nothing is validated here beyond reading: what is
// wrong with a card is cardvalidity.ts's to say (importplan.ts).
import { strFromU8 } from 'fflate';
import frontMatter from 'front-matter';
import { CARD_LIMITS } from '../generated/cardlimits';
import { inPool } from '../app/pool';
import { readZip, type ZipLimits } from './zipread';

/** A file as read: its path inside the folder or zip, and its bytes. */
export interface SourceFile { path: string; bytes: Uint8Array }

/** A card as read, before validation. `key` is what its id derives from. */
export interface SourceCard {
  where: string;
  key: string;
  /** Only the fields the source gives: the others are kept from the stored card, or defaulted. */
  fields: Record<string, unknown>;
}

export interface FileProblem { where: string; why: string }

export interface ReadResult { cards: SourceCard[]; problems: FileProblem[]; ignored: number }

// A file this far over the body limit is refused without being decoded.
const MAX_FILE_BYTES = CARD_LIMITS.body_max_bytes * 2;
const FIELDS = ['title', 'body', 'tags', 'visibility', 'viewers'] as const;

function isMarkdown(path: string): boolean {
  return /\.(md|markdown)$/i.test(path);
}

/** A PDF picked as a file, which pdfread.ts reads; one inside a picked folder is an attachment, ignored like its images. */
export function isLoosePdf(path: string): boolean {
  return /\.pdf$/i.test(path) && !path.includes('/');
}

/** Paths that share one top folder lose it: "vault/a.md" and a zip of "vault/" give "a.md" alike. */
export function stripCommonFolder(files: SourceFile[]): SourceFile[] {
  const firsts = new Set(files.map((f) => (f.path.includes('/') ? f.path.split('/')[0] : '')));
  if (firsts.size !== 1 || firsts.has('')) return files;
  return files.map((f) => ({ ...f, path: f.path.slice(f.path.indexOf('/') + 1) }));
}

// A .zip's Markdown may inflate to this much in all: a large vault fits, a
// zip bomb stops here (zipread.ts counts while inflating).
export const ZIP_LIMITS: ZipLimits = { fileBytes: MAX_FILE_BYTES, totalBytes: 256 * 1024 * 1024 };

/** The Markdown files of a .zip archive (macOS resource forks left out), each bounded by `limits`. */
export function unzipMarkdown(zip: Uint8Array, limits: ZipLimits = ZIP_LIMITS): { files: SourceFile[]; problems: FileProblem[] } {
  return readZip(zip, (name) => isMarkdown(name) && !name.startsWith('__MACOSX/'), limits);
}

function decode(bytes: Uint8Array): string {
  return strFromU8(bytes).replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

/** One Markdown file: front matter, else a leading "# " heading, else the file name, gives the title. */
export function readMarkdown(file: SourceFile): SourceCard | FileProblem {
  if (file.bytes.length > MAX_FILE_BYTES) {
    return { where: file.path, why: `too large (${file.bytes.length.toLocaleString('en')} bytes; a card holds ${CARD_LIMITS.body_max_bytes.toLocaleString('en')})` };
  }
  let meta: Record<string, unknown>;
  let body: string;
  try {
    const parsed = frontMatter<Record<string, unknown>>(decode(file.bytes));
    meta = parsed.attributes && typeof parsed.attributes === 'object' ? parsed.attributes : {};
    body = parsed.body;
  } catch (e) {
    return { where: file.path, why: `front matter is not valid YAML: ${(e as Error).message.split('\n')[0]}` };
  }
  const fields: Record<string, unknown> = {};
  for (const f of FIELDS) if (meta[f] !== undefined && meta[f] !== null) fields[f] = meta[f];
  if (fields.title === undefined) {
    const heading = /^\s*# +(.+?)\s*#*\s*(?:\n|$)/.exec(body);
    if (heading) {
      fields.title = heading[1];
      body = body.slice(heading[0].length);
    } else {
      fields.title = file.path.replace(/^.*\//, '').replace(/\.(md|markdown)$/i, '');
    }
  }
  fields.body = body.trim();
  for (const f of ['tags', 'viewers']) if (typeof fields[f] === 'string') fields[f] = [fields[f]];
  if (typeof fields.title === 'number') fields.title = String(fields.title);
  const key = typeof meta.id === 'string' && meta.id ? meta.id : file.path.replace(/\.(md|markdown)$/i, '');
  return { where: file.path, key, fields };
}

/** A JSON export: {"cards": [{id, title, body, tags, visibility, viewers}, ...]}. */
export function readJsonExport(name: string, text: string): ReadResult {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { cards: [], problems: [{ where: name, why: `not readable JSON: ${(e as Error).message}` }], ignored: 0 };
  }
  const list = (data as { cards?: unknown } | null)?.cards;
  if (!Array.isArray(list)) return { cards: [], problems: [{ where: name, why: 'expected {"cards": [...]}' }], ignored: 0 };
  const out: ReadResult = { cards: [], problems: [], ignored: 0 };
  list.forEach((c: unknown, i) => {
    const where = `${name} card #${i + 1}`;
    if (!c || typeof c !== 'object' || Array.isArray(c)) {
      out.problems.push({ where, why: 'not an object' });
      return;
    }
    const d = c as Record<string, unknown>;
    const fields: Record<string, unknown> = {};
    for (const f of FIELDS) if (d[f] !== undefined && d[f] !== null) fields[f] = d[f];
    const key = typeof d.id === 'string' && d.id ? d.id : `${name}#${i + 1}`;
    out.cards.push({ where: typeof d.id === 'string' ? `${where} (${d.id})` : where, key, fields });
  });
  return out;
}

// Files parsed between two yields to the page: a 5,000-file folder then
// shows its progress and never freezes the tab for more than a moment.
const FILES_PER_STEP = 200;

/** Markdown files (a picked folder or an unzipped archive); other files are counted as ignored. */
export async function readMarkdownFiles(
  files: SourceFile[],
  onProgress: (read: number, total: number) => void = () => {},
): Promise<ReadResult> {
  const out: ReadResult = { cards: [], problems: [], ignored: 0 };
  const markdown = stripCommonFolder(files.filter((f) => isMarkdown(f.path)));
  for (let start = 0; start < markdown.length; start += FILES_PER_STEP) {
    if (start) await new Promise((resolve) => setTimeout(resolve, 0));
    for (const f of markdown.slice(start, start + FILES_PER_STEP)) {
      const r = readMarkdown(f);
      if ('key' in r) out.cards.push(r);
      else out.problems.push(r);
    }
    onProgress(Math.min(start + FILES_PER_STEP, markdown.length), markdown.length);
  }
  out.ignored = files.length - markdown.length;
  return out;
}

// Picked files are read many to a Blob: the browser reads one Blob of 500
// small files far faster than 500 files one by one (docs/performance.md,
// benchmarks/browser_import.mjs). Bounded in bytes too, so a folder of big
// files is not held twice at once.
const FILES_PER_READ = 500;
const BYTES_PER_READ = 32 * 1024 * 1024;
const READS_IN_FLIGHT = 2;

/** A picked file (a File, or anything with its path, size and bytes as a Blob). */
export interface PickedFile extends Blob { name: string; webkitRelativePath?: string }

/**
 * The picked files as readPicked takes them. Only the bytes it reads are
 * read: all of a single file (a .zip, a .json, one note), else the Markdown
 * files'; the others (a vault's images) keep no bytes, they are only counted.
 */
export async function readFiles(picked: readonly PickedFile[]): Promise<SourceFile[]> {
  const path = (f: PickedFile) => f.webkitRelativePath || f.name;
  const wanted = picked.filter((f) => picked.length === 1 || isMarkdown(path(f)) || isLoosePdf(path(f)));
  const groups: PickedFile[][] = [];
  let bytes = Infinity;
  for (const f of wanted) {
    if (groups.length === 0 || groups[groups.length - 1].length >= FILES_PER_READ || bytes + f.size > BYTES_PER_READ) {
      groups.push([]);
      bytes = 0;
    }
    groups[groups.length - 1].push(f);
    bytes += f.size;
  }
  const read = new Map<PickedFile, Uint8Array>();
  await inPool(groups, READS_IN_FLIGHT, async (group) => {
    const all = new Uint8Array(await new Blob(group).arrayBuffer());
    let at = 0;
    for (const f of group) {
      read.set(f, all.subarray(at, at + f.size));
      at += f.size;
    }
  });
  return picked.map((f) => ({ path: path(f), bytes: read.get(f) ?? new Uint8Array(0) }));
}

/** Whatever the user picked but PDFs: a folder's files, one .zip, one .json, or loose .md files. */
export async function readPicked(files: SourceFile[], onProgress?: (read: number, total: number) => void): Promise<ReadResult> {
  if (files.length === 1 && /\.zip$/i.test(files[0].path)) {
    const zip = unzipMarkdown(files[0].bytes);
    const read = await readMarkdownFiles(zip.files, onProgress);
    read.problems.unshift(...zip.problems);
    return read;
  }
  if (files.length === 1 && /\.json$/i.test(files[0].path)) return readJsonExport(files[0].path, decode(files[0].bytes));
  return readMarkdownFiles(files, onProgress);
}
