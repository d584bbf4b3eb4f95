// "over your card limit": a card of the owner's the server kept but did not
// embed, over a per-user card quota (embedding_skips/{cardId}, written by the
// embedding worker). The label and each reason's explanation are defined once,
// in common/collections.json (`embedding_skip`), beside the server's reasons.
import shared from '../../../common/collections.json';

const SKIP = shared.embedding_skip;
export const OVER_LIMIT_LABEL = SKIP.label;

export interface SkipNote { label: string; detail: string }

/** What a card's page says about its skip record (`null`: it has none, or one of a reason this page does not know). */
export function skipNote(skip: { reason?: unknown } | null): SkipNote | null {
  const reason = typeof skip?.reason === 'string' ? skip.reason : '';
  if (!Object.hasOwn(SKIP.reasons, reason)) return null;
  return { label: SKIP.label, detail: SKIP.reasons[reason as keyof typeof SKIP.reasons] };
}

/** The Cards page's embedding line: "embedded n / N", and how many are over the limit; null once all are embedded. */
export function progressText(p: { embedded: number; cards: number; skipped: number }): string | null {
  if (p.embedded >= p.cards) return null;
  const fmt = (n: number) => n.toLocaleString('en');
  const over = p.skipped > 0 ? ` · ${fmt(p.skipped)} ${SKIP.label}` : '';
  return `embedded ${fmt(p.embedded)} / ${fmt(p.cards)}${over}`;
}
