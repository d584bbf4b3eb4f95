import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { CARD_LIMITS } from '../generated/cardlimits';
import { isLoosePdf, readFiles, readJsonExport, readMarkdown, readPicked, stripCommonFolder, type SourceCard, type SourceFile } from './importparse';

const file = (path: string, text: string): SourceFile => ({ path, bytes: strToU8(text) });
const asCard = (r: ReturnType<typeof readMarkdown>) => r as SourceCard;

describe('a Markdown file', () => {
  it('takes title, tags, visibility, viewers and id from YAML front matter', () => {
    const r = asCard(readMarkdown(file('notes/tides.md',
      '---\ntitle: "Tides: why"\ntags:\n  - ocean\n  - moon\nvisibility: public\nid: tides-1\n---\n\nThe moon pulls.\n')));
    expect(r).toEqual({
      where: 'notes/tides.md', key: 'tides-1',
      fields: { title: 'Tides: why', tags: ['ocean', 'moon'], visibility: 'public', body: 'The moon pulls.' },
    });
  });
  it('falls back to a leading heading, then the file name, and keys the card by its path', () => {
    const heading = asCard(readMarkdown(file('a/b.md', '# Heading title\n\nText')));
    expect(heading.fields).toEqual({ title: 'Heading title', body: 'Text' });
    expect(heading.key).toBe('a/b');
    expect(asCard(readMarkdown(file('a/Quiet note.md', 'Just text'))).fields.title).toBe('Quiet note');
  });
  it('reads a single tag given as a string, Windows line ends and a byte-order mark', () => {
    const r = asCard(readMarkdown(file('x.md', '\uFEFF---\r\ntags: solo\r\n---\r\n# T\r\nBody\r\n')));
    expect(r.fields).toEqual({ tags: ['solo'], title: 'T', body: 'Body' });
  });
  it('names a file whose front matter is not YAML, and one too large to read', () => {
    expect(readMarkdown(file('bad.md', '---\ntitle: [unclosed\n---\nx'))).toMatchObject({ where: 'bad.md', why: expect.stringMatching(/front matter/) });
    const big = { path: 'big.md', bytes: new Uint8Array(CARD_LIMITS.body_max_bytes * 2 + 1) };
    expect(readMarkdown(big)).toMatchObject({ where: 'big.md', why: expect.stringMatching(/too large/) });
  });
});

describe('what the user picked', () => {
  it('a folder: its top folder is dropped, other files are counted, not read', async () => {
    const r = await readPicked([file('vault/a.md', '# A\nx'), file('vault/sub/b.md', '# B\ny'), file('vault/pic.png', '')]);
    expect(r.cards.map((c) => c.key)).toEqual(['a', 'sub/b']);
    expect(r.ignored).toBe(1);
  });
  it('a .zip of the same folder gives the same keys', async () => {
    const zip = zipSync({ 'vault/a.md': strToU8('# A\nx'), 'vault/sub/b.md': strToU8('# B\ny'), '__MACOSX/vault/._a.md': strToU8('junk') });
    const r = await readPicked([{ path: 'vault.zip', bytes: zip }]);
    expect(r.cards.map((c) => c.key).sort()).toEqual(['a', 'sub/b']);
  });
  it('a JSON export: each card keyed by its id; bad entries and bad files named', async () => {
    const r = await readPicked([file('cards.json', JSON.stringify({ cards: [{ id: 'c1', title: 'T', body: 'B', tags: ['x'], owner: 'someone' }, 'nope'] }))]);
    expect(r.cards).toEqual([{ where: 'cards.json card #1 (c1)', key: 'c1', fields: { title: 'T', body: 'B', tags: ['x'] } }]);
    expect(r.problems).toEqual([{ where: 'cards.json card #2', why: 'not an object' }]);
    expect(readJsonExport('x.json', '{"cards": 3}').problems[0].why).toMatch(/expected/);
    expect(readJsonExport('x.json', '{').problems[0].why).toMatch(/not readable JSON/);
  });
  it('keeps paths that do not share one top folder', () => {
    const files = [file('a/x.md', ''), file('b/y.md', '')];
    expect(stripCommonFolder(files)).toBe(files);
  });
});

describe('reading the picked files', () => {
  const picked = (path: string, text: string) => Object.assign(new Blob([text]), { name: path.replace(/^.*\//, ''), webkitRelativePath: path });
  it('reads each Markdown file\'s own bytes, many to a read, and leaves the others unread', async () => {
    const notes = Array.from({ length: 1203 }, (_, i) => picked(`v/n${i}.md`, `# Note ${i}\n${'é'.repeat(i % 7)}`));
    const files = await readFiles([...notes, picked('v/pic.png', 'not read')]);
    expect(files.slice(0, 1203).map((f) => new TextDecoder().decode(f.bytes))).toEqual(notes.map((_, i) => `# Note ${i}\n${'é'.repeat(i % 7)}`));
    expect(files[1203]).toEqual({ path: 'v/pic.png', bytes: new Uint8Array(0) });
    const r = await readPicked(files);
    expect([r.cards.length, r.ignored]).toEqual([1203, 1]);
  });
  it('reads picked PDFs beside Markdown files; a PDF inside a picked folder stays unread, one more attachment', async () => {
    const loose = Object.assign(new Blob(['%PDF-1.4']), { name: 'Report.pdf', webkitRelativePath: '' });
    const files = await readFiles([loose, picked('note.md', '# N'), picked('v/attached.pdf', '%PDF-1.4')]);
    expect(files.map((f) => [f.path, f.bytes.length])).toEqual([['Report.pdf', 8], ['note.md', 3], ['v/attached.pdf', 0]]);
    expect(files.map((f) => isLoosePdf(f.path))).toEqual([true, false, false]);
  });
  it('reads a single picked file whatever it is (a .zip, a .json)', async () => {
    const json = picked('export.json', '{"cards": [{"id": "c1", "title": "T", "body": "B"}]}');
    expect((await readPicked(await readFiles([json]))).cards.map((c) => c.key)).toEqual(['c1']);
  });
});
