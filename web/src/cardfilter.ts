// The cards view's collection logic: merging the three permitted queries and
// filtering by tag, words and an explicit id list.

export interface CardDoc {
  id: string;
  title: string;
  body: string;
  owner: string;
  visibility: 'public' | 'private';
  viewers: string[];
  tags: string[];
  updated: number; // ms since epoch
}

export interface CardFilter {
  tag: string | null;
  text: string;
  ids: readonly string[] | null; // exactly these cards, in this order
  scope?: CardScope | null; // whose cards: null or absent, all
}

/** Whose a card is, as the reader sees it: theirs, shared with them by its owner, or public. */
export type CardScope = 'yours' | 'shared' | 'public';
export const CARD_SCOPES: readonly CardScope[] = ['yours', 'shared', 'public'];

export function cardScope(c: CardDoc, uid: string): CardScope {
  if (c.owner === uid) return 'yours';
  return c.visibility === 'public' ? 'public' : 'shared';
}

export function parseScope(raw: string | null): CardScope | null {
  return CARD_SCOPES.includes(raw as CardScope) ? (raw as CardScope) : null;
}

/** Union of the query results; a card in several results appears once. */
export function mergeCards(...lists: ReadonlyArray<readonly CardDoc[]>): CardDoc[] {
  const byId = new Map<string, CardDoc>();
  for (const list of lists) for (const c of list) byId.set(c.id, c);
  return [...byId.values()].sort((a, b) => a.title.localeCompare(b.title) || a.id.localeCompare(b.id));
}

export function tagCounts(cards: readonly CardDoc[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const c of cards) for (const t of c.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

function words(text: string): string[] {
  return text.toLowerCase().split(/\s+/).filter(Boolean);
}

export function filterCards(cards: readonly CardDoc[], f: CardFilter, uid = ''): CardDoc[] {
  let out: CardDoc[];
  if (f.ids) {
    const byId = new Map(cards.map((c) => [c.id, c]));
    out = f.ids.map((id) => byId.get(id)).filter((c): c is CardDoc => !!c);
  } else {
    out = [...cards];
  }
  if (f.scope) out = out.filter((c) => cardScope(c, uid) === f.scope);
  if (f.tag) out = out.filter((c) => c.tags.includes(f.tag!));
  const ws = words(f.text);
  if (ws.length) {
    out = out.filter((c) => {
      const hay = `${c.title}\n${c.body}\n${c.tags.join(' ')}`.toLowerCase();
      return ws.every((w) => hay.includes(w));
    });
  }
  return out;
}

/** A human description sent as the chat's collection description. */
export function describeCollection(f: CardFilter, selected: number | null): string {
  const parts: string[] = [];
  if (f.ids) parts.push(`${f.ids.length} listed cards`);
  if (f.tag) parts.push(`tag “${f.tag}”`);
  if (f.text.trim()) parts.push(`matching “${f.text.trim()}”`);
  const whose = f.scope ? { yours: 'My own cards', shared: 'Cards shared with me', public: 'Public cards' }[f.scope] : null;
  const scope = parts.length ? `${whose ?? 'Cards'} with ${parts.join(', ')}` : whose ?? 'All my visible cards';
  return selected === null ? scope : `${selected} selected from: ${scope}`;
}

export function parseIdList(raw: string | null): string[] | null {
  if (raw === null) return null;
  const ids = raw.split(',').map((s) => s.trim()).filter(Boolean);
  return ids.length ? [...new Set(ids)] : null;
}
