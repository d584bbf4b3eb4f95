// Reading the Markdown files of a .zip without trusting its sizes. A zip can
// inflate a thousandfold (a "zip bomb"), and an entry's declared size can lie,
// so every entry is inflated as a stream: the archive is fed in small steps,
// each entry's bytes are counted as they come, and an entry stops inflating
// the moment it passes its limit; the whole archive stops at its own.
import { Inflate, inflateSync, Unzip, type AsyncFlateStreamHandler, type FlateError, type UnzipFile } from 'fflate';

export interface ZipLimits {
  /** Bytes one entry may inflate to; past it the entry is a problem, the rest reads on. */
  fileBytes: number;
  /** Bytes all the Markdown entries together may inflate to; past it the read stops. */
  totalBytes: number;
}

export interface ZipEntry { path: string; bytes: Uint8Array }
export interface ZipProblem { where: string; why: string }
export interface ZipRead { files: ZipEntry[]; problems: ZipProblem[] }

// The archive is fed to the reader this much at a time (fflate's reader
// recurses once per entry within a step: bounded by it).
const FEED_BYTES = 32 * 1024;
// Deflate inflates at most about 1,032 times: a streamed entry is inflated
// 4 KiB at a time, at most about 4 MiB before its count is looked at again.
const STEP_BYTES = 4 * 1024;
// An entry this small (compressed) that declares its size is inflated in one
// go into a buffer one byte over that size (fflate truncates to the buffer:
// a full buffer is a lie): no streaming inflater's buffers, which for 5,000
// small notes cost ten times the inflating itself.
const WHOLE_BYTES = 64 * 1024;

function bytes(n: number): string {
  return `${n.toLocaleString('en')} bytes`;
}

function failure(message: string): FlateError {
  return Object.assign(new Error(message), { code: 0 });
}

/** Deflate that, once terminated, inflates nothing more of what it is fed (fflate's own keeps going). */
class StoppableInflate {
  static readonly compression = 8;
  ondata: AsyncFlateStreamHandler = () => {};
  private stopped = false;
  private inflate: Inflate | null = null;
  private readonly held: Uint8Array[] = [];

  constructor(_name: string, private readonly size?: number, private readonly declared?: number) {}

  push(chunk: Uint8Array, final: boolean): void {
    if (this.stopped) return;
    try {
      if (this.declared !== undefined && this.size !== undefined && this.size <= WHOLE_BYTES) this.whole(chunk, final, this.declared);
      else this.stream(chunk, final);
    } catch (e) {
      this.stopped = true;
      this.ondata(failure(`could not be inflated (${(e as Error).message})`), new Uint8Array(0), final);
    }
  }

  terminate(): void {
    this.stopped = true;
  }

  private whole(chunk: Uint8Array, final: boolean, declared: number): void {
    if (!final || this.held.length) this.held.push(chunk.slice());
    if (!final) return;
    const all = this.held.length ? concat(this.held, this.held.reduce((n, c) => n + c.length, 0)) : chunk;
    const out = inflateSync(all, { out: new Uint8Array(declared + 1) });
    if (out.length <= declared) this.ondata(null, out, true);
    else this.ondata(failure(`too large: inflates to more than the ${bytes(declared)} it declares`), new Uint8Array(0), true);
  }

  private stream(chunk: Uint8Array, final: boolean): void {
    this.inflate ??= new Inflate((data, last) => { if (!this.stopped) this.ondata(null, data, last); });
    for (let at = 0; !this.stopped && (at < chunk.length || at === 0); at += STEP_BYTES) {
      this.inflate.push(chunk.subarray(at, at + STEP_BYTES), final && at + STEP_BYTES >= chunk.length);
    }
  }
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** The reader of one archive: which entries it wants, and the running counts. */
class BoundedUnzip {
  readonly out: ZipRead = { files: [], problems: [] };
  private total = 0;
  private overTotal = false;

  constructor(private readonly limits: ZipLimits, private readonly wanted: (path: string) => boolean) {}

  read(zip: Uint8Array): ZipRead {
    // The streaming reader finds no entry in bytes that are not a zip at all and
    // would answer "nothing to import": a zip always ends with its end record.
    if (!hasEndRecord(zip)) throw new Error('not a readable .zip (it has no end-of-archive record)');
    const unzip = new Unzip((file) => this.entry(file));
    unzip.register(StoppableInflate);
    try {
      for (let at = 0; at < zip.length || at === 0; at += FEED_BYTES) {
        unzip.push(zip.subarray(at, at + FEED_BYTES), at + FEED_BYTES >= zip.length);
        if (this.overTotal) break;
      }
    } catch (e) {
      throw new Error(`not a readable .zip (${(e as Error).message})`, { cause: e });
    }
    if (this.overTotal) {
      throw new Error(`the .zip inflates to more than ${bytes(this.limits.totalBytes)} of Markdown; import it in parts`);
    }
    return this.out;
  }

  private entry(file: UnzipFile): void {
    if (!this.wanted(file.name) || this.overTotal) return;
    const declared = file.originalSize;
    if (declared !== undefined && declared > this.limits.fileBytes) {
      this.tooLarge(file.name, `declares ${bytes(declared)}`);
      return;
    }
    const chunks: Uint8Array[] = [];
    let length = 0;
    file.ondata = (err, data, final) => {
      if (err) {
        this.out.problems.push({ where: file.name, why: err.message });
        return;
      }
      length += data.length;
      this.total += data.length;
      if (length > this.limits.fileBytes || this.total > this.limits.totalBytes) {
        file.terminate();
        if (this.total > this.limits.totalBytes) this.overTotal = true;
        else this.tooLarge(file.name, `inflates to more than ${bytes(this.limits.fileBytes)}`);
        return;
      }
      chunks.push(data);
      if (final) this.out.files.push({ path: file.name, bytes: chunks.length === 1 ? data : concat(chunks, length) });
    };
    file.start();
  }

  private tooLarge(where: string, what: string): void {
    this.out.problems.push({ where, why: `too large: ${what}, not inflated further` });
  }
}

/** The end-of-central-directory signature within the last 22 + 65,535 bytes (its fixed part plus the longest comment). */
function hasEndRecord(zip: Uint8Array): boolean {
  for (let at = zip.length - 22; at >= 0 && at >= zip.length - 22 - 0xffff; at--) {
    if (zip[at] === 0x50 && zip[at + 1] === 0x4b && zip[at + 2] === 0x05 && zip[at + 3] === 0x06) return true;
  }
  return false;
}

/**
 * The entries of `zip` whose path `wanted` takes, each inflated to at most
 * `limits.fileBytes` (a larger one is a problem naming it), all together to at
 * most `limits.totalBytes` (past it, an Error whose message is the user's to read). Other entries are never inflated.
 */
export function readZip(zip: Uint8Array, wanted: (path: string) => boolean, limits: ZipLimits): ZipRead {
  return new BoundedUnzip(limits, wanted).read(zip);
}
