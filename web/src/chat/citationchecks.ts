// The server's check of each citation (functions/cardchat/generation/citation_checks.py):
// a complete answer's `citation_checks` holds one verdict per (claim, cited [n]), the claims
// counted across the answer in order as the uncited-claim rule splits them (claims.ts, the
// same blocks and sentences). A citation whose card holds no passage saying its claim is
// marked quietly, as an uncited claim is; its preview says so instead of showing a passage.
import { blocksOf, ownTextNodes, sentences, type Citable } from './claims';

export type CitationVerdict = 'supported' | 'weak' | 'unsupported';

export interface CitationCheck {
  sentence: number;
  n: number;
  verdict: CitationVerdict;
}

const VERDICTS: readonly string[] = ['supported', 'weak', 'unsupported'];
/** The classes a checked citation may carry, by verdict ("supported" carries none). */
export const MARKS: Record<CitationVerdict, string | null> = { supported: null, weak: 'cite-weak', unsupported: 'cite-unsupported' };
/** What a marked citation's preview says in place of a passage. */
export const NO_PASSAGE = 'No passage of this card says this.';

/** The stored field as the SPA reads it: null when absent or not a list (none written). */
export function parseCitationChecks(raw: unknown): CitationCheck[] | null {
  if (!Array.isArray(raw)) return null;
  return raw.filter((c): c is CitationCheck =>
    !!c && Number.isInteger(c.sentence) && Number.isInteger(c.n) && VERDICTS.includes(c.verdict));
}

/** Where each text node of a block starts, in the block's own text. */
function offsets(nodes: Text[]): Map<Text, number> {
  const out = new Map<Text, number>();
  let seen = 0;
  for (const node of nodes) {
    out.set(node, seen);
    seen += node.data.length;
  }
  return out;
}

/**
 * Puts each non-supported verdict of `checks` on its citation in a rendered answer (a class on
 * the [n] link, so copying the text picks up nothing); returns how many it marked.
 */
export function markChecks(root: Element, checks: readonly CitationCheck[] | null, citable: Citable): number {
  const wanted = new Map<string, string>();
  for (const c of checks ?? []) {
    const mark = MARKS[c.verdict];
    if (mark) wanted.set(`${c.sentence}:${c.n}`, mark);
  }
  if (!wanted.size) return 0;
  let index = 0;
  let marked = 0;
  for (const block of blocksOf(root)) {
    const nodes = ownTextNodes(block);
    const at = offsets(nodes);
    const text = nodes.map((t) => t.data).join('');
    const claims = sentences(text, citable).filter((s) => s.claim).map((s) => ({ ...s, index: index++ }));
    for (const cite of Array.from(block.querySelectorAll('a.cite, .cite-unavailable'))) {
      const first = nodes.find((t) => cite.contains(t));
      const offset = first ? at.get(first) ?? -1 : -1;
      const claim = claims.find((s) => s.start <= offset && offset < s.end);
      const mark = claim && wanted.get(`${claim.index}:${Number(cite.textContent)}`);
      if (mark) {
        cite.classList.add(mark);
        marked += 1;
      }
    }
  }
  return marked;
}

/** The verdict's class a citation carries, if it is marked. */
export function markedAs(cite: Element): string | null {
  return Object.values(MARKS).find((m) => m && cite.classList.contains(m)) ?? null;
}
