import { describe, expect, it } from 'vitest';
import { cardsToJson } from './exportcards';
import { readJsonExport, readMarkdownFiles } from './importparse';
import { derivedCardId, idRanges, isDocId, legacyDerivedId, planImport, summary, type OwnCardsAmong } from './importplan';
import { strToU8 } from 'fflate';
import type { CardDoc } from '../data/shapes';

const md = (path: string, text: string) => ({ path, bytes: strToU8(text) });
/** The owner's cards `mine`, looked up by id as cardwrites.ownCardsAmong does; `asked` records every id asked for. */
function among(mine: Map<string, CardDoc>, asked: string[] = []): OwnCardsAmong {
  return async (ids) => {
    asked.push(...ids);
    return new Map(ids.filter((id) => mine.has(id)).map((id) => [id, mine.get(id)!]));
  };
}
const none = () => among(new Map());
const stored = (id: string, over: Partial<CardDoc> = {}): CardDoc => ({
  id, title: 'T', body: 'B', owner: 'alice', visibility: 'private', viewers: [], tags: [], updated: 0, derived_from: null, ...over,
});

describe('card ids', () => {
  it('are derived per owner: two users\' readme.md never collide, the same user\'s does', async () => {
    const alice = await derivedCardId('alice', 'readme');
    expect(alice).toMatch(/^alice_readme-[0-9a-f]{16}$/);
    expect(await derivedCardId('bob', 'readme')).not.toBe(alice);
    expect(await derivedCardId('alice', 'readme')).toBe(alice);
  });
  it('are in the owner\'s namespace; a card imported before namespaces is updated under its old id', async () => {
    const old = await legacyDerivedId('alice', 'a');
    expect(old).toMatch(/^a-[0-9a-f]{16}$/);
    const read = await readMarkdownFiles([md('a.md', '# T\nedited'), md('b.md', '# B\nnew')]);
    const plan = await planImport('alice', read.cards, among(new Map([[old, stored(old)]])));
    expect(plan.updates.map((c) => c.id)).toEqual([old]);
    expect(plan.creates.map((c) => c.id)).toEqual([await derivedCardId('alice', 'b')]);
  });
  it('keep an id that already is one of the owner\'s cards (an export read back)', async () => {
    const plan = await planImport('alice', readJsonExport('x.json', '{"cards": [{"id": "c1", "title": "T", "body": "new"}]}').cards,
      among(new Map([['c1', stored('c1')]])));
    expect(plan.updates.map((c) => c.id)).toEqual(['c1']);
  });
  it('are only asked for when Firestore takes them as document ids', () => {
    expect(['c1', 'readme-0f'].every(isDocId)).toBe(true);
    expect(['', 'a/b', '.', '..', '__x__', 'é'.repeat(751)].some(isDocId)).toBe(false);
  });
});

describe('planImport', () => {
  it('creates new cards, then updates rather than duplicates on a second import', async () => {
    const read = await readMarkdownFiles([md('v/a.md', '# A\nfirst'), md('v/b.md', '# B\nsecond')]);
    const first = await planImport('alice', read.cards, none());
    expect(first.creates.map((c) => c.fields.title)).toEqual(['A', 'B']);
    const now = new Map(first.creates.map((c) => [c.id, stored(c.id, { ...c.fields })]));
    const again = await readMarkdownFiles([md('v/a.md', '# A\nfirst, edited'), md('v/b.md', '# B\nsecond')]);
    const second = await planImport('alice', again.cards, among(now));
    expect(second.creates).toEqual([]);
    expect(second.updates.map((c) => c.id)).toEqual([first.creates[0].id]);
    expect(second.unchanged.map((c) => c.id)).toEqual([first.creates[1].id]);
  });
  it('lists every file\'s problem before writing: empty, too long, duplicate ids', async () => {
    const read = await readMarkdownFiles([
      md('empty.md', '# Only a title\n'), md('long.md', `# ${'t'.repeat(301)}\nx`),
      md('one.md', '---\nid: same\n---\n# One\nx'), md('two.md', '---\nid: same\n---\n# Two\ny'),
    ]);
    const plan = await planImport('alice', read.cards, none());
    expect(plan.problems).toEqual([
      { where: 'empty.md', why: 'body is missing or empty' },
      { where: 'long.md', why: 'title is longer than 300 characters' },
      { where: 'two.md', why: 'duplicate id: the same card as one.md' },
    ]);
    expect(plan.creates.map((c) => c.where)).toEqual(['one.md']);
  });
  it('keeps what a re-imported file does not say (visibility, viewers)', async () => {
    const id = await derivedCardId('alice', 'a');
    const plan = await planImport('alice', (await readMarkdownFiles([md('a.md', '# T\nB')])).cards,
      among(new Map([[id, stored(id, { viewers: ['vic'] })]])));
    expect(plan.unchanged).toHaveLength(1);
  });
  it('reads its own JSON export back as unchanged cards (round trip)', async () => {
    const mine = [stored('c1', { title: 'One', tags: ['x'], viewers: ['vic'] }), stored('c2', { title: 'Two', visibility: 'public' })];
    const back = readJsonExport('cards.json', cardsToJson(mine, 'alice'));
    const plan = await planImport('alice', back.cards, among(new Map(mine.map((c) => [c.id, c]))));
    expect(plan.unchanged.map((c) => c.id)).toEqual(['c1', 'c2']);
    expect(plan.creates).toEqual([]);
    expect(plan.updates).toEqual([]);
  });
});

describe('planning reads only what the import could write (never the whole collection)', () => {
  it('asks for each file\'s derived id, and its key where that is an id, once', async () => {
    const asked: string[] = [];
    const mine = new Map([['other', stored('other')]]);
    const read = await readMarkdownFiles([md('v/a.md', '# A\nx'), md('v/sub/b.md', '# B\ny'), md('v/c.md', '---\nid: mine-1\n---\n# C\nz')]);
    await planImport('alice', read.cards, among(mine, asked));
    const derived = await Promise.all(['a', 'sub/b', 'mine-1'].map((k) => derivedCardId('alice', k)));
    const legacy = await Promise.all(['a', 'sub/b', 'mine-1'].map((k) => legacyDerivedId('alice', k)));
    expect(asked.sort()).toEqual([...derived, ...legacy, 'a', 'mine-1'].sort());
    expect(asked).not.toContain('other');
  });
});

describe('summary', () => {
  it('says what was written and why the rest was skipped', () => {
    expect(summary(412, 3, 1, 1)).toBe('412 created, 3 updated, 2 skipped: 1 unchanged, 1 with problems (listed below)');
    expect(summary(2, 0, 0, 0)).toBe('2 created, 0 updated, 0 skipped');
  });
});

describe('the ranges an import looks its ids up in', () => {
  it('hold every id once, in Firestore\'s order, at most so many to a range', () => {
    const ids = ['b', 'a', 'c', 'a', '\uFFFD', '\u{1F600}', 'd', 'e'];
    const ranges = idRanges(ids, 3);
    expect(ranges.flat()).toEqual(['a', 'b', 'c', 'd', 'e', '\uFFFD', '\u{1F600}']);
    expect(Math.max(...ranges.map((r) => r.length))).toBeLessThanOrEqual(3);
  });
  it('keep a folder\'s ids together, so the cards of another folder between them are not read', async () => {
    const ids = await Promise.all(['a', 'b', 'c'].flatMap((folder) =>
      Array.from({ length: 4 }, (_, i) => derivedCardId('alice', `${folder}/note-${i}`))));
    const ranges = idRanges(ids, 5);
    expect(ranges.map((r) => r.map((id) => id['alice_'.length]))).toEqual([['a', 'a', 'a', 'a'], ['b', 'b', 'b', 'b'], ['c', 'c', 'c', 'c']]);
  });
});
