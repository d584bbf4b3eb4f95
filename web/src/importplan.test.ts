import { describe, expect, it } from 'vitest';
import type { CardDoc } from './cardfilter';
import { cardsToJson } from './exportcards';
import { readJsonExport, readMarkdownFiles } from './importparse';
import { derivedCardId, planImport, summary } from './importplan';
import { strToU8 } from 'fflate';

const md = (path: string, text: string) => ({ path, bytes: strToU8(text) });
const stored = (id: string, over: Partial<CardDoc> = {}): CardDoc => ({
  id, title: 'T', body: 'B', owner: 'alice', visibility: 'private', viewers: [], tags: [], updated: 0, ...over,
});

describe('card ids', () => {
  it('are derived per owner: two users\' readme.md never collide, the same user\'s does', async () => {
    const none = new Set<string>();
    const alice = await derivedCardId('alice', 'readme', none);
    expect(alice).toMatch(/^readme-[0-9a-f]{16}$/);
    expect(await derivedCardId('bob', 'readme', none)).not.toBe(alice);
    expect(await derivedCardId('alice', 'readme', none)).toBe(alice);
  });
  it('keep an id that already is one of the owner\'s cards (an export read back)', async () => {
    expect(await derivedCardId('alice', 'c1', new Set(['c1']))).toBe('c1');
  });
});

describe('planImport', () => {
  it('creates new cards, then updates rather than duplicates on a second import', async () => {
    const read = readMarkdownFiles([md('v/a.md', '# A\nfirst'), md('v/b.md', '# B\nsecond')]);
    const first = await planImport('alice', read.cards, new Map());
    expect(first.creates.map((c) => c.fields.title)).toEqual(['A', 'B']);
    const now = new Map(first.creates.map((c) => [c.id, stored(c.id, { ...c.fields })]));
    const again = readMarkdownFiles([md('v/a.md', '# A\nfirst, edited'), md('v/b.md', '# B\nsecond')]);
    const second = await planImport('alice', again.cards, now);
    expect(second.creates).toEqual([]);
    expect(second.updates.map((c) => c.id)).toEqual([first.creates[0].id]);
    expect(second.unchanged.map((c) => c.id)).toEqual([first.creates[1].id]);
  });
  it('lists every file\'s problem before writing: empty, too long, duplicate ids', async () => {
    const read = readMarkdownFiles([
      md('empty.md', '# Only a title\n'), md('long.md', `# ${'t'.repeat(301)}\nx`),
      md('one.md', '---\nid: same\n---\n# One\nx'), md('two.md', '---\nid: same\n---\n# Two\ny'),
    ]);
    const plan = await planImport('alice', read.cards, new Map());
    expect(plan.problems).toEqual([
      { where: 'empty.md', why: 'body is missing or empty' },
      { where: 'long.md', why: 'title is longer than 300 characters' },
      { where: 'two.md', why: 'duplicate id: the same card as one.md' },
    ]);
    expect(plan.creates.map((c) => c.where)).toEqual(['one.md']);
  });
  it('keeps what a re-imported file does not say (visibility, viewers)', async () => {
    const id = await derivedCardId('alice', 'a', new Set());
    const plan = await planImport('alice', readMarkdownFiles([md('a.md', '# T\nB')]).cards,
      new Map([[id, stored(id, { viewers: ['vic'] })]]));
    expect(plan.unchanged).toHaveLength(1);
  });
  it('reads its own JSON export back as unchanged cards (round trip)', async () => {
    const mine = [stored('c1', { title: 'One', tags: ['x'], viewers: ['vic'] }), stored('c2', { title: 'Two', visibility: 'public' })];
    const back = readJsonExport('cards.json', cardsToJson(mine, 'alice'));
    const plan = await planImport('alice', back.cards, new Map(mine.map((c) => [c.id, c])));
    expect(plan.unchanged.map((c) => c.id)).toEqual(['c1', 'c2']);
    expect(plan.creates).toEqual([]);
    expect(plan.updates).toEqual([]);
  });
});

describe('summary', () => {
  it('says what was written and why the rest was skipped', () => {
    expect(summary(412, 3, 1, 1)).toBe('412 created, 3 updated, 2 skipped: 1 unchanged, 1 with problems (listed below)');
    expect(summary(2, 0, 0, 0)).toBe('2 created, 0 updated, 0 skipped');
  });
});
