// Claims without a source: the rule of common/claims.json, which the server
// applies too (functions/cardchat/generation/claims.py) when it counts them for the
// answer's `uncited_claims`. Both run common/claim_cases.json and
// common/citation_cases.json. Here the rule runs on the rendered answer: a
// block is a <p> or a list item's own text, as textContent has it (a citation
// reads "[n]"); a citation cites only if one of its numbers names a card
// (`citable`: the answer's CitationMap), as the server reads it.
import rule from '../../../common/claims.json';
import { parseCitationNumbers } from './citations';

const SENTENCE_END = new RegExp(rule.sentence_end, 'g');
const CITATIONS = new RegExp(rule.citation, 'g');

/** Whether [n] names a card; by default every number does. */
export type Citable = (n: number) => boolean;
const ANY: Citable = () => true;

export interface Sentence {
  start: number;
  end: number;
  claim: boolean;
  cited: boolean;
}

function judge(block: string, start: number, end: number, citable: Citable): Sentence {
  const text = block.slice(start, end);
  const words = text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  const bare = text.replace(CITATIONS, '').trimEnd();
  const claim = words >= rule.min_words && !bare.endsWith(':') && !bare.endsWith('?');
  const cited = [...text.matchAll(CITATIONS)].some((m) => parseCitationNumbers(m[0]).some(citable));
  return { start, end, claim, cited };
}

/** A block's sentences, each judged by the shared rule. */
export function sentences(block: string, citable: Citable = ANY): Sentence[] {
  if (rule.not_claims.some((p) => block.trimStart().startsWith(p))) return [];
  const ends = [...block.matchAll(SENTENCE_END)].map((m) => (m.index ?? 0) + m[0].length);
  const out: Sentence[] = [];
  let start = 0;
  for (const end of [...ends, block.length]) {
    const text = block.slice(start, end);
    if (text.trim()) {
      const lead = text.length - text.trimStart().length;
      out.push(judge(block, start + lead, start + text.trimEnd().length, citable));
    }
    start = end;
  }
  return out;
}

/** The text nodes of a block, nested lists left out (each item is its own block). */
export function ownTextNodes(block: Element): Text[] {
  const out: Text[] = [];
  const walk = (node: Node): void => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === Node.TEXT_NODE) out.push(child as Text);
      else if (child instanceof Element && !/^(UL|OL|P|PRE|TABLE|BLOCKQUOTE)$/.test(child.tagName)) walk(child);
    }
  };
  walk(block);
  return out;
}

/** Blocks of a rendered answer: paragraphs, and list items that hold no paragraph. */
export function blocksOf(root: Element): Element[] {
  return Array.from(root.querySelectorAll('p, li')).filter(
    (el) => el.tagName === 'P' ? !el.closest('table') : !Array.from(el.children).some((c) => c.tagName === 'P'),
  );
}

/** The uncited claims of a rendered answer, as text (what the shared cases list). */
export function uncitedIn(root: Element, citable: Citable = ANY): string[] {
  return blocksOf(root).flatMap((block) => {
    const text = ownTextNodes(block).map((t) => t.data).join('');
    return sentences(text, citable).filter((s) => s.claim && !s.cited).map((s) => text.slice(s.start, s.end));
  });
}

/**
 * Puts a quiet "no source" marker after each uncited claim of a rendered
 * answer; returns how many. The marker's words come from CSS, so copying the
 * answer's text never picks them up.
 */
export function markUncited(root: Element, citable: Citable = ANY): number {
  let count = 0;
  for (const block of blocksOf(root)) {
    const nodes = ownTextNodes(block);
    const text = nodes.map((t) => t.data).join('');
    const ends = sentences(text, citable).filter((s) => s.claim && !s.cited).map((s) => s.end);
    for (const end of ends.reverse()) { // from the end, so earlier offsets stay valid
      insertAt(nodes, end, () => {
        const mark = document.createElement('span');
        mark.className = 'no-source'; // a class, not an app attribute: it sits inside the answer's own HTML
        mark.setAttribute('role', 'note');
        mark.setAttribute('aria-label', 'no source');
        return mark;
      });
      count += 1;
    }
  }
  return count;
}

function insertAt(nodes: Text[], offset: number, make: () => Element): void {
  let seen = 0;
  for (const node of nodes) {
    if (offset <= seen + node.data.length) {
      const after = node.splitText(offset - seen);
      after.parentNode?.insertBefore(make(), after);
      return;
    }
    seen += node.data.length;
  }
}
