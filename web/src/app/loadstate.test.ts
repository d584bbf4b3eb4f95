import { describe, expect, it } from 'vitest';
import { failureText, listView, type ListLoad, type ListNoun } from './loadstate';

const base: ListLoad = { error: null, shown: 0, complete: false, filtered: false, total: null };
/** The text a list shows instead of items ("" when it shows items). */
const text = (noun: ListNoun, s: ListLoad) => { const v = listView(noun, s); return v.kind === 'items' ? '' : v.text; };
const unavailable = { code: 'unavailable', message: 'Failed to get documents from server.' };

describe('listView: errors are never shown as emptiness', () => {
  it('says loading until the server has answered', () => {
    expect(listView('cards', base).kind).toBe('loading');
    expect(listView('cards', { ...base, complete: true }).kind).toBe('loading'); // no count yet
    expect(listView('cards', { ...base, complete: true, filtered: true }).kind).toBe('loading');
    expect(listView('cards', { ...base, total: 0 }).kind).toBe('loading'); // the list itself has not answered
  });

  it('says a failed query failed, what failed, and that it is retrying', () => {
    const v = listView('cards', { ...base, error: unavailable, complete: true, total: 0 });
    expect(v).toEqual({ kind: 'failed', text: failureText('cards', unavailable) });
    expect(failureText('cards', unavailable)).toMatch(/^Couldn’t load your cards — retrying \(.*could not be reached.*\[unavailable\]\)$/);
    expect(failureText('chats', { code: 'permission-denied' })).toMatch(/^Couldn’t load your chats — retrying \(.*not allowed/);
    expect(failureText('messages', new Error('boom'))).toMatch(/^Couldn’t load this chat’s messages — retrying \(boom\)$/);
  });

  it('says "no cards yet" only when the server counts 0', () => {
    expect(listView('cards', { ...base, complete: true, total: 0 })).toEqual({ kind: 'empty', text: 'You have no cards yet.' });
    expect(listView('cards', { ...base, complete: true, total: 3 }).kind).toBe('loading');
    expect(listView('cards', { ...base, complete: true, filtered: true, total: 3 }))
      .toEqual({ kind: 'empty', text: 'No card matches this filter.' });
    expect(text('cards', { ...base, complete: true, filtered: true, total: 0 })).toBe('You have no cards yet.');
  });

  it('shows the items it has even while a later page fails', () => {
    expect(listView('cards', { ...base, shown: 50, error: unavailable })).toEqual({ kind: 'items' });
  });

  it('speaks of chats and messages in their own words', () => {
    expect(text('chats', { ...base, complete: true, total: 0 })).toMatch(/No chats yet/);
    expect(text('messages', { ...base, complete: true, total: 0 })).toMatch(/no messages yet/);
  });
});
