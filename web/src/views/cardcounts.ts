// The Cards page's counts (issue 21), by aggregation queries, each asked
// once: the scope menu's "Yours (10,000)" and the list's "10,000 cards shown"
// are the same count, so they share one request rather than each scanning
// the collection. A failed count is forgotten (asked again next time);
// `forget` drops them all after cards changed.
import { CARD_SCOPES, type CardScope } from '../cardfilter';
import { countCards } from '../cardqueries';

export type ScopeCounts = Record<CardScope | 'all', number | null>;

export class CardCounts {
  private readonly asked = new Map<string, Promise<number | null>>();

  constructor(private readonly uid: string) {}

  /** How many cards of `scope` (null: all the reader may see) carry `tag`; null when no query can count it. */
  count(scope: CardScope | null, tag: string | null): Promise<number | null> {
    if (scope === null) return this.scopes(tag).then((c) => c.all);
    const key = `${scope}|${tag ?? ''}`;
    let n = this.asked.get(key);
    if (!n) {
      n = countCards(this.uid, scope, tag);
      this.asked.set(key, n);
      n.catch(() => { if (this.asked.get(key) === n) this.asked.delete(key); });
    }
    return n;
  }

  /** Each scope's count for `tag`, and their sum (null if one of them cannot be counted). */
  async scopes(tag: string | null): Promise<ScopeCounts> {
    const parts = await Promise.all(CARD_SCOPES.map((sc) => this.count(sc, tag)));
    const all = parts.some((n) => n === null) ? null : (parts as number[]).reduce((a, b) => a + b, 0);
    return { ...Object.fromEntries(CARD_SCOPES.map((sc, i) => [sc, parts[i]])), all } as ScopeCounts;
  }

  /** Cards changed: every count is asked again. */
  forget(): void {
    this.asked.clear();
  }
}
