// The Cards page's counts, by aggregation queries, each asked
// once: the source menu's "Mine (10,000)" and the list's "10,000 cards shown"
// are the same count, so they share one request rather than each scanning
// the collection. A failed count is forgotten (asked again next time);
// `forget` drops them all after cards changed.
import { countCards, type ScopeSpec } from '../data/cardqueries';

export class CardCounts {
  private readonly asked = new Map<string, Promise<number | null>>();

  constructor(private readonly uid: string) {}

  /** How many cards of `spec` carry `tag`; null when no query can count it. */
  count(spec: ScopeSpec, tag: string | null): Promise<number | null> {
    const key = JSON.stringify([spec.scope, spec.owner, spec.acceptedSharers, tag]);
    let n = this.asked.get(key);
    if (!n) {
      n = countCards(this.uid, spec, tag);
      this.asked.set(key, n);
      n.catch(() => { if (this.asked.get(key) === n) this.asked.delete(key); });
    }
    return n;
  }

  /** Cards changed: every count is asked again. */
  forget(): void {
    this.asked.clear();
  }
}
