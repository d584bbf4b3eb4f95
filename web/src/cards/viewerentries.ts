// The card editor's viewers: people are typed as email addresses,
// cards keep uids (the rules compare them with request.auth.uid). An entry
// that is not an address is a uid kept as it is: a viewer resolveViewers
// cannot name (added by id, or whose account is gone) stays on the card.
import type { Viewer } from '../data/api';

export function isEmail(entry: string): boolean {
  return /^[^@\s]+@[^@\s]+$/.test(entry);
}

/** What the editor knows: address → uid, from the card's named viewers and earlier look-ups. */
export type ViewerBook = Map<string, string>;

/** The card's viewers as the editor shows them: the address where it is known, else the uid. */
export function shownEntries(viewers: readonly Viewer[], book: ViewerBook): string[] {
  for (const v of viewers) if (v.email) book.set(v.email, v.uid);
  return viewers.map((v) => v.email || v.uid);
}

export type Resolve = (emails: string[]) => Promise<{ viewers: Viewer[]; unknown: string[] }>;

/**
 * The uids of `entries`, looking up only addresses the book does not hold
 * (each look-up spends the caller's hourly budget); `unknown`: addresses
 * with no account, which must not be saved as if they were someone.
 */
export async function entriesToUids(entries: readonly string[], book: ViewerBook, resolve: Resolve): Promise<{ uids: string[]; unknown: string[] }> {
  const lower = entries.map((e) => (isEmail(e) ? e.toLowerCase() : e));
  const missing = [...new Set(lower.filter((e) => isEmail(e) && !book.has(e)))];
  let unknown: string[] = [];
  if (missing.length) {
    const out = await resolve(missing);
    for (const v of out.viewers) book.set(v.email, v.uid);
    unknown = out.unknown;
  }
  const uids = lower.filter((e) => !unknown.includes(e)).map((e) => (isEmail(e) ? book.get(e)! : e));
  return { uids: [...new Set(uids)], unknown };
}
