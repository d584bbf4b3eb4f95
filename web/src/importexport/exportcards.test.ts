import { describe, expect, it } from 'vitest';
import { citedNumbers } from '../chat/citations';
import { cardsToJson, cardsToMarkdown, transcriptToMarkdown } from './exportcards';
import type { CardDoc } from '../data/shapes';

const card = (id: string, over: Partial<CardDoc> = {}): CardDoc => ({
  id, title: `Title ${id}`, body: `Body ${id}`, owner: 'alice', visibility: 'private', viewers: [], tags: [], updated: 0, derived_from: null, ...over,
});

describe('cards export', () => {
  it('writes one Markdown document in the order given: title, tags, body', () => {
    expect(cardsToMarkdown([card('b', { tags: ['x', 'y'] }), card('a')]))
      .toBe('## Title b\n\nTags: x, y\n\nBody b\n\n---\n\n## Title a\n\nBody a\n');
  });
  it('writes JSON without owners, and someone else\'s card without its sharing', () => {
    const json = JSON.parse(cardsToJson([card('m', { viewers: ['vic'] }), card('o', { owner: 'bob', viewers: ['alice'], visibility: 'private' })], 'alice'));
    expect(json.cards[0]).toEqual({ id: 'm', title: 'Title m', body: 'Body m', tags: [], visibility: 'private', viewers: ['vic'] });
    expect(json.cards[1].viewers).toEqual([]);
    expect(json.cards.some((c: object) => 'owner' in c)).toBe(false);
  });

  it('leaves out the answer a card was saved from: it names a chat of the exporter, and no importer writes it', () => {
    const json = JSON.parse(cardsToJson([card('s', { derived_from: { chat_id: 'c', message_id: 'c-0001' } })], 'alice'));
    expect('derived_from' in json.cards[0]).toBe(false);
  });
});

describe('transcript export', () => {
  const messages = [
    { role: 'user' as const, content: 'What pulls the tides?', model: null },
    { role: 'assistant' as const, content: 'The moon [2], and the sun [1, 3].', model: 'claude-x' },
  ];
  const titles = new Map([['c1', 'Sun'], ['c2', 'Moon']]);
  it('finds the numbers an answer cites, not Markdown links', () => {
    expect(citedNumbers('a [2] b [1, 3] c [4](http://x) d [2-3]')).toEqual([2, 1, 3]);
  });
  it('resolves citations to card titles; a withdrawn card says so', () => {
    const md = transcriptToMarkdown('Tides', messages, ['c1', 'c2', ''], titles, false);
    expect(md).toContain('**You:**\n\nWhat pulls the tides?');
    expect(md).toContain('Sources:\n\n- [2] Moon\n- [1] Sun\n- [3] (no longer in this chat)');
    expect(md).not.toContain("context");
  });
  it('lists the context\'s cards for the owner only', () => {
    expect(transcriptToMarkdown('Tides', messages, ['c1', 'c2'], titles, true))
      .toContain("## Cards in this chat's context\n\n1. Sun\n2. Moon");
  });
});
