// Whether a chat's cards cover an answer's question: the server decides it
// (functions/cardchat/generation/coverage.py, the message's `coverage`), the SPA says it plainly
// under the answer. Anyone who reads the answer reads the notice; only the
// owner gets its actions, and a visitor never learns which cards are nearest
// (their titles come only through the citation layer, as in the sources list).
import rule from '../../../common/claims.json';

export type Coverage = 'covered' | 'partial' | 'none';
export type CoverageAction = 'widen' | 'raise' | 'anyway';

const VALUES: readonly string[] = rule.coverage.values;
/** How "Ask anyway" starts the question it posts again (the offline answerer then quotes however weak). */
export const ANYWAY: string = rule.coverage.anyway;
/** What the start-chat dialog's share is set to by "Raise the background share" (budget.ts MAX_PERCENT). */
export const RAISED_PERCENT = 90;

export function parseCoverage(v: unknown): Coverage | null {
  return typeof v === 'string' && VALUES.includes(v) ? (v as Coverage) : null;
}

export interface CoverageNotice {
  coverage: 'partial' | 'none';
  text: string;
  actions: CoverageAction[];
}

export const ACTION_LABELS: Record<CoverageAction, string> = {
  widen: 'Widen the collection',
  raise: 'Raise the background share',
  anyway: 'Ask anyway',
};

/** The notice under a complete answer, or null when its cards cover it (or it predates coverage). */
export function coverageNotice(coverage: Coverage | null, owner: boolean): CoverageNotice | null {
  if (coverage === 'none') {
    return {
      coverage,
      text: 'The cards of this chat don’t seem to cover this question.',
      actions: owner ? ['widen', 'raise', 'anyway'] : [],
    };
  }
  if (coverage === 'partial') {
    return {
      coverage,
      text: 'The cards of this chat cover this question only in part: check what the answer cites.',
      actions: owner ? ['widen', 'raise'] : [],
    };
  }
  return null;
}

/** The question "Ask anyway" posts: the one asked, marked once. */
export function anywayQuestion(question: string): string {
  const q = question.trim();
  return q.startsWith(ANYWAY) ? q : `${ANYWAY} ${q}`;
}

/** What a new chat started from a notice's action begins with: its question, and a share (percent) if raised. */
export interface PendingStart {
  question: string;
  percent: number | null;
}

const PENDING_KEY = 'cardchat.pendingStart';

export function rememberStart(start: PendingStart, store: Pick<Storage, 'setItem'> = sessionStorage): void {
  store.setItem(PENDING_KEY, JSON.stringify(start));
}

/** The pending start, once: the next start-chat dialog takes it. */
export function takeStart(store: Pick<Storage, 'getItem' | 'removeItem'> = sessionStorage): PendingStart | null {
  const raw = store.getItem(PENDING_KEY);
  store.removeItem(PENDING_KEY);
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as Partial<PendingStart>;
    if (typeof v.question !== 'string') return null;
    return { question: v.question.startsWith(ANYWAY) ? v.question.slice(ANYWAY.length).trim() : v.question,
      percent: typeof v.percent === 'number' ? v.percent : null };
  } catch {
    return null;
  }
}

/** The Cards page a chat's collection was picked on (its tag and search; a hand-picked selection is not kept). */
export function collectionFilter(configuration: Record<string, unknown> | undefined): { tag: string | null; q: string } {
  const c = configuration ?? {};
  return { tag: typeof c.tag === 'string' && c.tag ? c.tag : null, q: typeof c.text === 'string' ? c.text : '' };
}
