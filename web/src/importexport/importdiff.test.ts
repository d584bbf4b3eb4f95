import { describe, expect, it } from 'vitest';
import type { CardFields } from '../cards/cardvalidity';
import { fieldChanges, importWrites, widening, widensAccess } from './importdiff';
import { readJsonExport } from './importparse';
import { planImport, type OwnCardsAmong } from './importplan';
import type { CardDoc } from '../data/shapes';

const card = (over: Partial<CardFields> = {}): CardFields => ({ title: 'T', body: 'B', visibility: 'private', viewers: [], tags: [], ...over });
const stored = (id: string, over: Partial<CardFields> = {}): CardDoc => ({ id, owner: 'alice', updated: 0, derived_from: null, ...card(over) });
const among = (...mine: CardDoc[]): OwnCardsAmong => async (ids) =>
  new Map(mine.filter((c) => ids.includes(c.id)).map((c) => [c.id, c]));
const deck = (cards: object[]) => readJsonExport('deck.json', JSON.stringify({ cards })).cards;

describe('what an import changes in a stored card', () => {
  it('names each changed field; lists say what they gain and lose', () => {
    expect(fieldChanges(card({ tags: ['a', 'b'], viewers: ['vic'] }), card({ title: 'New', tags: ['b', 'c'], viewers: ['vic'] }))).toEqual([
      { field: 'title', what: 'changed' }, { field: 'tags', what: '+c −a' },
    ]);
    expect(fieldChanges(card(), card({ visibility: 'public' }))).toEqual([{ field: 'visibility', what: 'private → public' }]);
    expect(fieldChanges(card(), card())).toEqual([]);
  });
  it('widens access when it publishes a private card or adds a viewer, never otherwise', () => {
    expect(widensAccess(card(), card({ visibility: 'public' }))).toBe(true);
    expect(widensAccess(card({ viewers: ['vic'] }), card({ viewers: ['vic', 'eve'] }))).toBe(true);
    expect(widensAccess(card({ viewers: ['vic', 'eve'] }), card({ viewers: ['vic'] }))).toBe(false);
    expect(widensAccess(card({ visibility: 'public' }), card({ visibility: 'private', viewers: ['eve'] }))).toBe(false);
    expect(widensAccess(card(), card({ body: 'changed' }))).toBe(false);
  });
});

describe('a deck that would widen access to the importer\'s own cards', () => {
  it('is shown, and writes nothing wider unless confirmed', async () => {
    const mine = [stored('secret'), stored('shared', { viewers: ['vic'] }), stored('notes')];
    const plan = await planImport('alice', deck([
      { id: 'secret', visibility: 'public' },
      { id: 'shared', viewers: ['vic', 'eve'], body: 'edited' },
      { id: 'notes', body: 'edited too' },
    ]), among(...mine));
    expect(widening(plan).map((u) => u.id)).toEqual(['secret', 'shared']);

    const kept = importWrites(plan, false);
    expect(kept.updates.map((u) => [u.id, u.fields.visibility, u.fields.viewers, u.fields.body])).toEqual([
      ['shared', 'private', ['vic'], 'edited'],
      ['notes', 'private', [], 'edited too'],
    ]);
    const confirmed = importWrites(plan, true);
    expect(confirmed.updates.map((u) => [u.id, u.fields.visibility, u.fields.viewers])).toEqual([
      ['secret', 'public', []], ['shared', 'private', ['vic', 'eve']], ['notes', 'private', []],
    ]);
  });
  it('a new card is no widening: only the owner\'s stored cards are compared', async () => {
    const plan = await planImport('alice', deck([{ id: 'fresh', title: 'F', body: 'x', visibility: 'public' }]), among());
    expect(widening(plan)).toEqual([]);
    expect(importWrites(plan, false).creates.map((c) => c.fields.visibility)).toEqual(['public']);
  });
});
