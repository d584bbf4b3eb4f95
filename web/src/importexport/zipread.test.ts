import { deflateSync, strToU8, zipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { readPicked, unzipMarkdown, ZIP_LIMITS } from './importparse';
import { readZip } from './zipread';

/**
 * An entry as a zip writer would store it, with the sizes it declares free to
 * lie; `streamed`: as a writer that did not know them yet (sizes after the data).
 */
interface Stored { name: string; deflated: Uint8Array; declared: number; streamed?: boolean }

/** The data descriptor a streamed entry's sizes follow its data in. */
function descriptor(e: Stored): Uint8Array {
  const d = new DataView(new ArrayBuffer(16));
  d.setUint32(0, 0x08074b50, true);
  d.setUint32(8, e.deflated.length, true);
  d.setUint32(12, e.declared, true);
  return new Uint8Array(d.buffer);
}

/** A .zip of deflated entries (no checksums: the reader does not need them), sizes as declared. */
function zipOf(entries: Stored[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = strToU8(e.name);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(6, e.streamed ? 8 : 0, true);
    local.setUint16(8, 8, true);
    local.setUint32(18, e.streamed ? 0 : e.deflated.length, true);
    local.setUint32(22, e.streamed ? 0 : e.declared, true);
    local.setUint16(26, name.length, true);
    const dir = new DataView(new ArrayBuffer(46));
    dir.setUint32(0, 0x02014b50, true);
    dir.setUint16(4, 20, true);
    dir.setUint16(6, 20, true);
    dir.setUint16(10, 8, true);
    dir.setUint32(20, e.deflated.length, true);
    dir.setUint32(24, e.declared, true);
    dir.setUint16(28, name.length, true);
    dir.setUint32(42, offset, true);
    const after = e.streamed ? descriptor(e) : new Uint8Array(0);
    parts.push(new Uint8Array(local.buffer), name, e.deflated, after);
    central.push(new Uint8Array(dir.buffer), name);
    offset += 30 + name.length + e.deflated.length + after.length;
  }
  const dirBytes = central.reduce((n, c) => n + c.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, dirBytes, true);
  end.setUint32(16, offset, true);
  const all = [...parts, ...central, new Uint8Array(end.buffer)];
  const out = new Uint8Array(all.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of all) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

const note = (name: string, text: string): Stored => {
  const bytes = strToU8(text);
  return { name, deflated: deflateSync(bytes), declared: bytes.length };
};

// A bound, not a measure: the machine running the tests may be busy.
describe('a .zip whose entries inflate past the limits', { timeout: 60_000 }, () => {
  const HUGE = 8 * 1024 * 1024;
  let bomb: Uint8Array;
  beforeAll(() => {
    bomb = deflateSync(new Uint8Array(HUGE), { level: 1 });
  });

  it('a bomb is small to carry and huge inflated', () => {
    expect(bomb.length * 500).toBeLessThan(HUGE);
  });

  it('an entry declaring a huge size is named and never inflated; the others are read', async () => {
    const zip = zipOf([note('v/a.md', '# A\nx'), { name: 'v/bomb.md', deflated: bomb, declared: HUGE }, note('v/b.md', '# B\ny')]);
    const r = await readPicked([{ path: 'v.zip', bytes: zip }]);
    expect(r.cards.map((c) => c.key)).toEqual(['a', 'b']);
    expect(r.problems).toEqual([{ where: 'v/bomb.md', why: 'too large: declares 8,388,608 bytes, not inflated further' }]);
  });

  it('an entry whose declared size lies is inflated no further than that size', () => {
    const zip = zipOf([{ name: 'liar.md', deflated: bomb, declared: 1000 }, note('ok.md', 'fine')]);
    const r = unzipMarkdown(zip);
    expect(r.files.map((f) => f.path)).toEqual(['ok.md']);
    expect(r.problems).toEqual([{ where: 'liar.md', why: 'too large: inflates to more than the 1,000 bytes it declares' }]);
  });

  it('an entry that declares no size stops inflating at the limit', () => {
    const zip = zipOf([note('a.md', 'first'), { name: 'bomb.md', deflated: bomb, declared: HUGE, streamed: true }, note('ok.md', 'fine')]);
    const r = unzipMarkdown(zip);
    expect(r.files.map((f) => f.path)).toEqual(['a.md', 'ok.md']);
    expect(r.problems).toEqual([{
      where: 'bomb.md', why: `too large: inflates to more than ${ZIP_LIMITS.fileBytes.toLocaleString('en')} bytes, not inflated further`,
    }]);
  });

  it('many entries each under the limit stop the whole read at the total, with a message saying so', () => {
    const each = ZIP_LIMITS.fileBytes - 1;
    const deflated = deflateSync(new Uint8Array(each));
    const limits = { ...ZIP_LIMITS, totalBytes: 20 * each };
    const zip = zipOf(Array.from({ length: 21 }, (_, i) => ({ name: `n${i}.md`, deflated, declared: each })));
    expect(unzipMarkdown(zip.subarray(0, zip.length), { ...limits, totalBytes: 21 * each }).files).toHaveLength(21);
    expect(() => unzipMarkdown(zip, limits)).toThrow(`inflates to more than ${(20 * each).toLocaleString('en')} bytes of Markdown; import it in parts`);
  });

  it('the limits are the caller\'s: an entry exactly at them is read', () => {
    const zip = zipSync({ 'a.md': strToU8('12345'), 'b.md': strToU8('123456'), 'pic.png': new Uint8Array(100) });
    const r = readZip(zip, (p) => p.endsWith('.md'), { fileBytes: 5, totalBytes: 100 });
    expect(r.files.map((f) => [f.path, f.bytes.length])).toEqual([['a.md', 5]]);
    expect(r.problems.map((p) => p.where)).toEqual(['b.md']);
    expect(() => readZip(zip, (p) => p.endsWith('.md'), { fileBytes: 10, totalBytes: 8 })).toThrow(/more than 8 bytes/);
  });

  it('reads thousands of entries (one step of the archive holds hundreds)', () => {
    const files = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`n${i}.md`, strToU8(`# N${i}\nx`)]));
    expect(unzipMarkdown(zipSync(files)).files).toHaveLength(2000);
  });

  it('a damaged archive is named as not readable', () => {
    const zip = zipOf([note('a.md', Array.from({ length: 500 }, (_, i) => `line ${i}`).join('\n'))]);
    expect(() => unzipMarkdown(zip.subarray(0, 60))).toThrow(/not a readable \.zip/);
  });

  it('a file that is no zip at all is named as not readable, an empty zip as empty', () => {
    expect(() => unzipMarkdown(strToU8('# Not a zip\n\nJust Markdown named .zip by mistake.'))).toThrow(/not a readable \.zip/);
    expect(unzipMarkdown(zipSync({})).files).toEqual([]);
  });
});
