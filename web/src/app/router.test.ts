import { describe, expect, it } from 'vitest';
import { cardsPath, chatPath, deckPath, isInAppClick, parseRoute, reviewPath } from './router';

describe('parseRoute', () => {
  it('parses Review cards for a saved collection or a filter, and writes its URL back', () => {
    expect(parseRoute('/review', '?collection=c1')).toMatchObject({ name: 'review', collection: 'c1' });
    expect(parseRoute('/review', '')).toEqual({ name: 'review', collection: null, query: { scope: 'mine' } });
    const query = { scope: 'owner' as const, owner: 'bob', tag: 'git', text: 'rebase' };
    expect(parseRoute('/review', reviewPath({ query }).slice('/review'.length))).toEqual({ name: 'review', collection: null, query });
    expect(reviewPath({ query: { scope: 'mine' } })).toBe('/review');
    expect(reviewPath({ query: { scope: 'shared', tag: 'py' } })).toBe('/review?scope=shared&tag=py');
    expect(parseRoute('/review', '?scope=mine_and_shared')).toMatchObject({ query: { scope: 'mine_and_shared' } });
    expect(reviewPath({ collection: 'a b' })).toBe('/review?collection=a+b');
  });
  it('parses the cards view with its filters', () => {
    expect(parseRoute('/', '?tag=git&q=rebase'))
      .toEqual({ name: 'cards', tag: 'git', q: 'rebase', cards: null, chat: null, scope: null, owner: null });
    expect(parseRoute('/', '?scope=shared')).toMatchObject({ name: 'cards', scope: 'shared' });
    expect(parseRoute('/', '?scope=yours')).toMatchObject({ name: 'cards', scope: 'mine' });
    expect(parseRoute('/', '?scope=bogus')).toMatchObject({ name: 'cards', scope: null });
    // "everyone's public cards" is no scope any more
    expect(parseRoute('/', '?scope=public')).toMatchObject({ name: 'cards', scope: null });
    expect(parseRoute('/', '?scope=visible')).toMatchObject({ name: 'cards', scope: null });
  });
  it('parses a link to one owner\'s public cards', () => {
    expect(parseRoute('/', '?owner=bob&tag=git')).toMatchObject({ name: 'cards', scope: 'owner', owner: 'bob', tag: 'git' });
    expect(parseRoute('/', deckPath('bob b', 'c++').slice(1))).toMatchObject({ scope: 'owner', owner: 'bob b', tag: 'c++' });
    expect(deckPath('bob')).toBe('/?owner=bob');
  });
  it('writes the cards view\'s URL back, the reader\'s own cards by none', () => {
    const none = { tag: null, q: '', cards: null, chat: null, scope: null, owner: null };
    expect(cardsPath(none)).toBe('/');
    expect(cardsPath({ ...none, scope: 'mine', tag: 'git' })).toBe('/?tag=git');
    expect(cardsPath({ ...none, scope: 'shared' })).toBe('/?scope=shared');
    const deck = { ...none, scope: 'owner' as const, owner: 'bob', tag: 'git', q: 'rebase' };
    expect(parseRoute('/', cardsPath(deck).slice(1))).toEqual({ name: 'cards', ...deck });
    expect(parseRoute('/', '?cards=a,b')).toMatchObject({ name: 'cards', cards: 'a,b' });
    expect(parseRoute('/', '?chat=c1')).toMatchObject({ name: 'cards', chat: 'c1' });
  });
  it('parses chats, a chat and a card', () => {
    expect(parseRoute('/chat/', '')).toEqual({ name: 'chats' });
    expect(parseRoute('/chat', '')).toEqual({ name: 'chats' });
    expect(parseRoute('/chat/abc', '')).toEqual({ name: 'chat', id: 'abc' });
    expect(parseRoute('/chat/abc/', '')).toEqual({ name: 'chat', id: 'abc' });
    expect(parseRoute('/card/x%20y', '')).toEqual({ name: 'card', id: 'x y' });
    expect(parseRoute('/nope/x', '')).toEqual({ name: 'notfound' });
    expect(parseRoute('/settings', '')).toEqual({ name: 'settings' });
    expect(parseRoute('/settings/', '')).toEqual({ name: 'settings' });
    expect(parseRoute('/usage', '')).toEqual({ name: 'usage' });
    expect(parseRoute('/check', '')).toEqual({ name: 'check' });
    expect(parseRoute('/check/', '')).toEqual({ name: 'check' });
    expect(parseRoute('/new', '')).toEqual({ name: 'cardedit', id: null });
    expect(parseRoute('/card/x%20y/edit', '')).toEqual({ name: 'cardedit', id: 'x y' });
    expect(parseRoute('/import/', '')).toEqual({ name: 'import' });
    expect(chatPath('a b')).toBe('/chat/a%20b');
  });
});

describe('isInAppClick', () => {
  const plain = { button: 0, metaKey: false, ctrlKey: false, shiftKey: false, altKey: false, defaultPrevented: false };
  const origin = 'http://127.0.0.1:5000';
  it('handles plain same-origin clicks', () => {
    expect(isInAppClick(plain, { href: `${origin}/chat/x`, target: '', hasDownload: false }, origin)).toBe(true);
  });
  it('leaves modified clicks, new tabs, downloads and other origins to the browser', () => {
    expect(isInAppClick({ ...plain, ctrlKey: true }, { href: `${origin}/`, target: '', hasDownload: false }, origin)).toBe(false);
    expect(isInAppClick(plain, { href: `${origin}/`, target: '_blank', hasDownload: false }, origin)).toBe(false);
    expect(isInAppClick(plain, { href: `${origin}/`, target: '', hasDownload: true }, origin)).toBe(false);
    expect(isInAppClick(plain, { href: 'https://git-scm.com/', target: '', hasDownload: false }, origin)).toBe(false);
  });
});

describe('parseRoute with malformed escapes', () => {
  it('answers not found instead of throwing (a link in a card can point anywhere)', () => {
    expect(parseRoute('/card/%E0%A4%A', '')).toEqual({ name: 'notfound' });
    expect(parseRoute('/chat/%E0%A4%A', '')).toEqual({ name: 'notfound' });
    expect(parseRoute('/chat/%', '')).toEqual({ name: 'notfound' });
    expect(parseRoute('/', '?q=%E0%A4%A')).toMatchObject({ name: 'cards' });
  });
});
