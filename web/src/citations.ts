// Citations: the answer cites background cards as [n], where n is 1-based
// into chats/{id}.card_ids (the rank order the server packed them in).

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

export function cardHref(cardId: string): string {
  return `/card/${encodeURIComponent(cardId)}`;
}

// A URL carrying every id stays usable up to a few dozen ids; beyond that the
// cards view resolves the list from the chat document instead.
export const MAX_IDS_IN_URL = 40;

export function backgroundCardsHref(chatId: string, cardIds: readonly string[]): string {
  if (cardIds.length <= MAX_IDS_IN_URL) {
    return `/?cards=${cardIds.map(encodeURIComponent).join(',')}`;
  }
  return `/?chat=${encodeURIComponent(chatId)}`;
}
