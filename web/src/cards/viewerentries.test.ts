import { describe, expect, it } from 'vitest';
import { entriesToUids, isEmail, shownEntries, type Resolve, type ViewerBook } from './viewerentries';

const bob = { uid: 'u-bob', email: 'bob@x.test', display_name: '' };

describe('viewer entries', () => {
  it('show a card\'s viewers by address where known, else by uid', () => {
    const book: ViewerBook = new Map();
    expect(shownEntries([bob, { uid: 'u-old', email: '', display_name: '' }], book)).toEqual(['bob@x.test', 'u-old']);
    expect(book.get('bob@x.test')).toBe('u-bob');
  });
  it('look up only addresses not yet known, keep uids, and name the unknown', async () => {
    const asked: string[][] = [];
    const resolve: Resolve = async (emails) => {
      asked.push(emails);
      return { viewers: emails.includes('carol@x.test') ? [{ uid: 'u-carol', email: 'carol@x.test', display_name: '' }] : [], unknown: emails.filter((e) => e !== 'carol@x.test') };
    };
    const book: ViewerBook = new Map([['bob@x.test', 'u-bob']]);
    const out = await entriesToUids(['bob@x.test', 'Carol@X.test', 'u-old', 'nobody@x.test', 'carol@x.test'], book, resolve);
    expect(asked).toEqual([['carol@x.test', 'nobody@x.test']]);
    expect(out).toEqual({ uids: ['u-bob', 'u-carol', 'u-old'], unknown: ['nobody@x.test'] });
    await entriesToUids(['carol@x.test'], book, resolve);
    expect(asked).toHaveLength(1); // known now: no second look-up
  });
  it('tell an address from a uid', () => {
    expect(isEmail('a@b.c')).toBe(true);
    expect(isEmail('Xk3pQ9uid')).toBe(false);
  });
});
