// The cards view's collection logic: whose cards (the reader's own by
// default), filtering by tag, words and an explicit id list.
import type { CardDoc } from '../data/shapes';
import { sourceLabel } from './cardsources';

export interface CardFilter {
  tag: string | null;
  text: string;
  ids: readonly string[] | null; // exactly these cards, in this order
  scope?: CardScope | null; // whose cards: null or absent, the reader's own
  owner?: string | null; // scope 'owner': whose public cards
  acceptedSharers?: readonly string[]; // scope 'shared': the people whose cards it takes (none: nobody's)
}

/**
 * Whose cards the page shows, by the server's names (CollectionQuery.scope):
 * the reader's own (the default), others' cards shared with them, or one
 * owner's public cards. Nothing else of anyone else's is a scope.
 */
export type CardScope = 'mine' | 'shared' | 'owner';

/** How a card stands to its reader, for its chip: theirs, shared with them, someone's public card. */
export type CardRelation = 'mine' | 'shared' | 'public';

export function cardRelation(c: CardDoc, uid: string): CardRelation {
  if (c.owner === uid) return 'mine';
  return c.visibility === 'public' ? 'public' : 'shared';
}

/** A scope a link may name (an owner's public cards come with `owner=`); the old "yours" is "mine". */
export function parseScope(raw: string | null): CardScope | null {
  if (raw === 'yours') return 'mine';
  return raw === 'mine' || raw === 'shared' ? raw : null;
}

/** Is `c` in the filter's scope for `uid`? */
export function inScope(c: CardDoc, f: Pick<CardFilter, 'scope' | 'owner' | 'acceptedSharers'>, uid: string): boolean {
  switch (f.scope ?? 'mine') {
    case 'mine': return c.owner === uid;
    case 'shared': return c.owner !== uid && c.visibility !== 'public' && (f.acceptedSharers ?? []).includes(c.owner);
    case 'owner': return c.owner === f.owner && c.visibility === 'public';
  }
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
  if (!f.ids || f.scope) out = out.filter((c) => inScope(c, f, uid));
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
  const scope = f.scope ?? (f.ids ? null : 'mine');
  const whose = scope === 'owner' && f.owner ? sourceLabel({ owner: f.owner })
    : scope ? { mine: 'My own cards', shared: 'Cards shared with me', owner: 'Public cards' }[scope] : null;
  const scopeText = parts.length ? `${whose ?? 'Cards'} with ${parts.join(', ')}` : whose ?? 'Cards';
  return selected === null ? scopeText : `${selected} selected from: ${scopeText}`;
}

export function parseIdList(raw: string | null): string[] | null {
  if (raw === null) return null;
  const ids = raw.split(',').map((s) => s.trim()).filter(Boolean);
  return ids.length ? [...new Set(ids)] : null;
}
