// Citations: the answer cites background cards as [n], where n is 1-based
// into chat_private/{id}.card_ids (the rank order the server packed them in),
// which only the owner reads. A visitor's list comes from the chat's
// public_citations instead: public cards only, "" (plain [n]) elsewhere.

/** Matches "[3]", "[1, 4]", "[2-5]" / "[2–5]" at the start of src, not a Markdown link "[3](…)". */
export const CITATION_RE = /^\[(\d{1,4}(?:\s*(?:,|-|–)\s*\d{1,4})*)\](?![(:])/;

const MAX_RANGE = 50;

/** "1, 3-5" → [1, 3, 4, 5]; order kept, duplicates dropped. */
export function parseCitationNumbers(inner: string): number[] {
  const out: number[] = [];
  for (const part of inner.split(',')) {
    const range = part.split(/-|–/).map((s) => Number(s.trim()));
    if (range.length === 2 && range[0] <= range[1] && range[1] - range[0] <= MAX_RANGE) {
      for (let n = range[0]; n <= range[1]; n++) out.push(n);
    } else {
      for (const n of range) out.push(n);
    }
  }
  return [...new Set(out.filter((n) => Number.isInteger(n) && n > 0))];
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
