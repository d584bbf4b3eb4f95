// Citations: the answer cites background cards as [n], where n is 1-based
// into chat_private/{id}.card_ids (the rank order the server packed them in),
// which only the owner reads. A visitor's list comes from the chat's
// public_citations instead: the public cards that a complete answer cites
// (the server adds them with that answer), "" (a card they cannot view)
// elsewhere. Which numbers name a card at all is the rule of the server's
// claims.py (shared cases: common/citation_cases.json): an [n] that is 0,
// beyond the background or withdrawn is plain text, and a card is known by
// its first number only; the server stores the numbers an answer cites that
// name a card on the message (`sources`), so a visitor, who never sees the
// card list, reads them the same way.
import rule from '../../../common/claims.json';

/** Matches a citation ("[3]", "[1, 4]", "[2-5]" / "[2–5]", not a Markdown link "[3](…)") at the start of src. */
export const CITATION_RE = new RegExp(`^(?:${rule.citation})`);
const CITATIONS = new RegExp(rule.citation, 'g');

const MAX_RANGE = 50;

/** "[1, 3-5]" → [1, 3, 4, 5]; order kept, 0 and repeats dropped (claims.citation_numbers). */
export function parseCitationNumbers(citation: string): number[] {
  const out: number[] = [];
  for (const part of citation.trim().slice(1, -1).split(',')) {
    const range = part.split(/-|–/).map((s) => Number(s.trim()));
    if (range.length === 2 && range[0] <= range[1] && range[1] - range[0] <= MAX_RANGE) {
      for (let n = range[0]; n <= range[1]; n++) out.push(n);
    } else {
      for (const n of range) out.push(n);
    }
  }
  return [...new Set(out.filter((n) => Number.isInteger(n) && n > 0))];
}

/** The numbers a text cites, in order of first use (claims.cited_numbers). */
export function citedNumbers(text: string): number[] {
  return [...new Set([...text.matchAll(CITATIONS)].flatMap((m) => parseCitationNumbers(m[0])))];
}

/**
 * Which card each [n] of one answer names, for one reader: null for none
 * (plain text: the number does not cite), '' for a card this reader cannot
 * view, else its id.
 */
export interface CitationMap {
  card(n: number): string | null;
}

/**
 * The owner's: `cardIds` is the whole background (chat_private.card_ids, ""
 * a withdrawn card); `sources` the answer's (null for one stored before
 * answers kept them).
 */
export function ownerCitations(cardIds: readonly string[], sources: readonly number[] | null = null): CitationMap {
  return {
    card(n) {
      const id = n >= 1 ? cardIds[n - 1] ?? '' : '';
      if (!id || cardIds.indexOf(id) !== n - 1) return null; // a card is known by its first number only
      return sources && !sources.includes(n) ? null : id;
    },
  };
}

/**
 * A visitor's or viewer's: `publicIds` from chats/{id}.public_citations
 * (publicCitationIds); the answer's `sources` say which numbers name a card.
 */
export function readerCitations(publicIds: readonly string[], sources: readonly number[] | null): CitationMap {
  return {
    card(n) {
      if (n < 1 || (sources && !sources.includes(n))) return null;
      return publicIds[n - 1] ?? '';
    },
  };
}

/** What a reader knows of a chat's citations: the owner its card list, anyone else its public cards. */
export interface ChatCitations {
  /** Changes whenever what some [n] names may have changed. */
  readonly key: string;
  forAnswer(sources: readonly number[] | null): CitationMap;
}

/** `ownerCardIds`: chat_private.card_ids for the owner, null for anyone else. */
export function chatCitations(
  ownerCardIds: readonly string[] | null, publicCitations: Readonly<Record<string, string>>,
): ChatCitations {
  if (ownerCardIds) return { key: `owner:${ownerCardIds.join(',')}`, forAnswer: (s) => ownerCitations(ownerCardIds, s) };
  const ids = publicCitationIds(publicCitations);
  return { key: `reader:${ids.join(',')}`, forAnswer: (s) => readerCitations(ids, s) };
}

export interface Source { n: number; cardId: string }

/** The cards an answer cites, each once, by the number it is known by; '' a card this reader cannot view. */
export function answerSources(content: string, cites: CitationMap): Source[] {
  const out: Source[] = [];
  const seen = new Set<string>();
  for (const n of citedNumbers(content)) {
    const cardId = cites.card(n);
    if (cardId === null || (cardId && seen.has(cardId))) continue;
    seen.add(cardId);
    out.push({ n, cardId });
  }
  return out;
}

export function citedCardId(n: number, cardIds: readonly string[]): string | null {
  return n >= 1 && n <= cardIds.length ? cardIds[n - 1] : null;
}

/** chats/{id}.public_citations as a card-id list for the renderer: "" where a card is not public. */
export function publicCitationIds(citations: Readonly<Record<string, string>>): string[] {
  const ids: string[] = [];
  for (const [key, id] of Object.entries(citations)) {
    const n = Number(key);
    if (Number.isInteger(n) && n >= 1 && n <= 10_000 && id) ids[n - 1] = id;
  }
  return Array.from(ids, (id) => id ?? '');
}

export function cardHref(cardId: string): string {
  return `/card/${encodeURIComponent(cardId)}`;
}

// A URL carrying every id stays usable up to a few dozen ids; beyond that the
// cards view resolves the list from the chat document instead.
export const MAX_IDS_IN_URL = 40;

/** `cardIds` as citation order has them; withdrawn ones ("") are left out. */
export function backgroundCardsHref(chatId: string, cardIds: readonly string[]): string {
  const ids = cardIds.filter(Boolean);
  if (ids.length <= MAX_IDS_IN_URL) {
    return `/?cards=${ids.map(encodeURIComponent).join(',')}`;
  }
  return `/?chat=${encodeURIComponent(chatId)}`;
}
