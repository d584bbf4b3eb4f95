// Client-side routing over the History API. Hosting rewrites every path to
// index.html, so a reload of any of these URLs lands here.
import { parseScope, type CardScope } from '../cards/cardfilter';
import type { CollectionQuery } from '../data/api';

export type Route =
  // owner: that owner's public cards (a link to their deck, e.g. from one of their public cards)
  | { name: 'cards'; tag: string | null; q: string; cards: string | null; chat: string | null; scope: CardScope | null; owner: string | null }
  | { name: 'card'; id: string }
  | { name: 'chats' }
  | { name: 'chat'; id: string }
  | { name: 'settings' }
  | { name: 'usage' }
  // A draft checked against the reader's cards
  | { name: 'check' }
  // The owner's card editor (id null: a new card) and the import page
  | { name: 'cardedit'; id: string | null }
  | { name: 'import' }
  // saved collections: the list, and one with its chats
  | { name: 'collections' }
  | { name: 'collection'; id: string }
  // Review cards: the overlapping pairs of a saved collection, else of the Cards page's filter
  | { name: 'review'; collection: string | null; query: CollectionQuery }
  | { name: 'notfound' };

/** A path segment's text; null for a malformed escape ("%E0%A4%A"), which names no card or chat. */
function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

export function parseRoute(pathname: string, search: string): Route {
  const params = new URLSearchParams(search);
  const path = pathname.replace(/\/{2,}/g, '/');
  if (path === '/' || path === '') {
    return {
      name: 'cards',
      tag: params.get('tag') || null,
      q: params.get('q') ?? '',
      cards: params.get('cards'),
      chat: params.get('chat') || null,
      scope: params.get('owner') ? 'owner' : parseScope(params.get('scope')),
      owner: params.get('owner') || null,
    };
  }
  if (/^\/chats?\/?$/.test(path)) return { name: 'chats' };
  if (/^\/settings\/?$/.test(path)) return { name: 'settings' };
  if (/^\/usage\/?$/.test(path)) return { name: 'usage' };
  if (/^\/check\/?$/.test(path)) return { name: 'check' };
  if (/^\/new\/?$/.test(path)) return { name: 'cardedit', id: null };
  if (/^\/import\/?$/.test(path)) return { name: 'import' };
  if (/^\/collections\/?$/.test(path)) return { name: 'collections' };
  if (/^\/review\/?$/.test(path)) return reviewRoute(params);
  const saved = /^\/collections\/([^/]+)\/?$/.exec(path);
  const savedId = saved ? decodeSegment(saved[1]) : null;
  if (savedId !== null) return { name: 'collection', id: savedId };
  const edit = /^\/card\/([^/]+)\/edit\/?$/.exec(path);
  const editId = edit ? decodeSegment(edit[1]) : null;
  if (editId !== null) return { name: 'cardedit', id: editId };
  const m = /^\/(card|chat)\/([^/]+)\/?$/.exec(path);
  const id = m ? decodeSegment(m[2]) : null;
  if (m && id !== null) return { name: m[1] as 'card' | 'chat', id };
  return { name: 'notfound' };
}

function reviewRoute(params: URLSearchParams): Route {
  const owner = params.get('owner');
  const query: CollectionQuery = { scope: owner ? 'owner' : params.get('scope') === 'mine_and_shared' ? 'mine_and_shared' : parseScope(params.get('scope')) ?? 'mine' };
  if (owner) query.owner = owner;
  if (params.get('tag')) query.tag = params.get('tag') as string;
  if (params.get('q')) query.text = params.get('q') as string;
  return { name: 'review', collection: params.get('collection') || null, query };
}

/** Review cards for a saved collection (by its id) or for a query (the Cards page's filter). */
export function reviewPath(of: { collection: string } | { query: CollectionQuery }): string {
  const p = new URLSearchParams();
  if ('collection' in of) p.set('collection', of.collection);
  else {
    const q = of.query;
    if (q.scope === 'owner' && q.owner) p.set('owner', q.owner);
    else if (q.scope && q.scope !== 'mine') p.set('scope', q.scope);
    if (q.tag) p.set('tag', q.tag);
    if (q.text) p.set('q', q.text);
  }
  const qs = p.toString();
  return qs ? `/review?${qs}` : '/review';
}

export function cardPath(id: string): string {
  return `/card/${encodeURIComponent(id)}`;
}

export function cardEditPath(id: string): string {
  return `/card/${encodeURIComponent(id)}/edit`;
}

/** The Cards page's URL for its filter (the reader's own cards need no parameter). */
export function cardsPath(r: Omit<Extract<Route, { name: 'cards' }>, 'name'>): string {
  const p = new URLSearchParams();
  if (r.tag) p.set('tag', r.tag);
  if (r.q) p.set('q', r.q);
  if (r.scope === 'owner' && r.owner) p.set('owner', r.owner);
  else if (r.scope === 'shared') p.set('scope', 'shared');
  if (r.cards) p.set('cards', r.cards);
  if (r.chat) p.set('chat', r.chat);
  const qs = p.toString();
  return qs ? `/?${qs}` : '/';
}

/** One owner's public cards on the Cards page, all of them or those with `tag`. */
export function deckPath(owner: string, tag?: string | null): string {
  const p = new URLSearchParams({ owner });
  if (tag) p.set('tag', tag);
  return `/?${p.toString()}`;
}

/** A chat's page; `at`: the message to open it at (a search hit). */
export function chatPath(id: string, at?: number | null): string {
  return `/chat/${encodeURIComponent(id)}${at === undefined || at === null ? '' : `?m=${at}`}`;
}

export function collectionPath(id: string): string {
  return `/collections/${encodeURIComponent(id)}`;
}

/** Should a click on this link be handled in-app rather than by the browser? */
export function isInAppClick(
  e: Pick<MouseEvent, 'button' | 'metaKey' | 'ctrlKey' | 'shiftKey' | 'altKey' | 'defaultPrevented'>,
  a: { href: string; target: string; hasDownload: boolean },
  origin: string,
): boolean {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return false;
  if (a.target && a.target !== '_self') return false;
  if (a.hasDownload) return false;
  try {
    return new URL(a.href, origin).origin === origin;
  } catch {
    return false;
  }
}

type Listener = (route: Route) => void;

export class Router {
  private listener: Listener | null = null;

  start(listener: Listener): void {
    this.listener = listener;
    window.addEventListener('popstate', () => this.emit());
    document.addEventListener('click', (e) => {
      const a = (e.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!a) return;
      const link = { href: a.href, target: a.target, hasDownload: a.hasAttribute('download') };
      if (!isInAppClick(e, link, location.origin)) return;
      e.preventDefault();
      const url = new URL(a.href);
      this.navigate(url.pathname + url.search + url.hash);
    });
    this.emit();
  }

  navigate(url: string, opts: { replace?: boolean } = {}): void {
    if (url === location.pathname + location.search + location.hash && !opts.replace) return;
    if (opts.replace) history.replaceState(null, '', url);
    else history.pushState(null, '', url);
    this.emit();
  }

  current(): Route {
    return parseRoute(location.pathname, location.search);
  }

  private emit(): void {
    this.listener?.(this.current());
  }
}

export const router = new Router();
