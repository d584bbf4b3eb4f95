// The Check a draft page: pasted text goes to checkDraft, which splits it into claims and judges
// each against the reader's cards (functions/cardchat/generation/draft_check.py); each claim comes
// back with its verdict, said in words beside its icon, and the cards with the passage that decided.
// Whose cards: the reader's own unless they choose another scope here, as the server's default.
import shared from '../../../common/collections.json';
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { icon, type IconName } from '../app/icons';
import { checkDraft, type CheckDraftRequest, type DraftClaim, type DraftVerdict } from '../data/api';

/** Characters of a draft at most: the server refuses more (common/collections.json `draft_check`). */
export const MAX_DRAFT_CHARS: number = shared.draft_check.text_max_chars;

type Check = (req: CheckDraftRequest) => Promise<{ claims: DraftClaim[] }>;
type Scope = 'mine' | 'shared' | 'mine_and_shared';

/** Each verdict as the page says it: its icon and its words (the icon is hidden from screen readers). */
export const VERDICTS: Record<DraftVerdict, { icon: IconName; label: string }> = {
  supported: { icon: 'check-circle', label: 'Supported: a card says this' },
  conflicting: { icon: 'alert-triangle', label: 'Conflicting: a card says otherwise' },
  unsupported: { icon: 'minus-circle', label: 'Unsupported: no card says this' },
};

const SCOPES: Array<[Scope, string]> = [
  ['mine', 'Your cards'],
  ['shared', 'Cards shared with you'],
  ['mine_and_shared', 'Yours and those shared with you'],
];

/** The draft's length as the server counts it (characters, not UTF-16 units, of the trimmed text). */
export function draftLength(text: string): number {
  return [...text.trim()].length;
}

/** The counter under the text box, and whether the draft may be sent. */
export function draftCount(text: string, max: number = MAX_DRAFT_CHARS): { label: string; sendable: boolean } {
  const n = draftLength(text);
  const over = n > max;
  const label = `${n.toLocaleString('en')} / ${max.toLocaleString('en')} characters${over ? ` (${(n - max).toLocaleString('en')} over the limit)` : ''}`;
  return { label, sendable: n > 0 && !over };
}

/** "3 claims: 1 supported, 1 conflicting, 1 unsupported", or that none was found. */
export function summary(claims: readonly DraftClaim[]): string {
  if (!claims.length) return 'No claims found: a claim is a sentence of a few words that is not a question or a heading.';
  const count = (v: DraftVerdict) => claims.filter((c) => c.verdict === v).length;
  const parts = (['supported', 'conflicting', 'unsupported'] as const).map((v) => `${count(v)} ${v}`);
  return `${claims.length} ${claims.length === 1 ? 'claim' : 'claims'}: ${parts.join(', ')}`;
}

function cardItem(card: DraftClaim['cards'][number]): HTMLElement {
  return h('li', { 'data-testid': 'draft-card', 'data-card-id': card.id },
    h('a', { href: `/card/${encodeURIComponent(card.id)}` }, card.title || '(untitled)'),
    card.passage ? h('blockquote', { class: 'draft-passage' }, card.passage) : null);
}

/** One claim: its text, its verdict (icon and words), and its cards with their passages. */
export function claimItem(claim: DraftClaim): HTMLElement {
  const verdict = VERDICTS[claim.verdict];
  return h('li', { class: `draft-claim verdict-${claim.verdict}`, 'data-testid': 'draft-claim', 'data-verdict': claim.verdict },
    h('p', { class: 'draft-claim-text' }, claim.text),
    h('p', { class: 'draft-verdict', 'data-testid': 'draft-verdict' }, icon(verdict.icon), ' ', verdict.label),
    claim.cards.length
      ? h('ul', { class: 'draft-cards', 'aria-label': 'Cards' }, claim.cards.map(cardItem))
      : null);
}

/** The results region: what the server answered, or why it did not. */
function showResults(results: HTMLElement, out: Promise<{ claims: DraftClaim[] }>): Promise<void> {
  replaceChildren(results, h('p', { class: 'muted', role: 'status' }, 'Checking the draft against your cards…'));
  return out.then(
    ({ claims }) => {
      replaceChildren(results,
        h('p', { role: 'status', 'data-testid': 'draft-summary' }, summary(claims)),
        claims.length ? h('ol', { class: 'draft-claims', 'data-testid': 'draft-claims' }, claims.map(claimItem)) : null);
    },
    (err: unknown) => {
      replaceChildren(results, h('p', { role: 'alert', 'data-testid': 'draft-error' }, `Could not check the draft: ${describeError(err)}`));
    },
  );
}

/** The form: the text box with its counter, whose cards, and the Check button. */
function draftForm(results: HTMLElement, check: Check): HTMLFormElement {
  const text = h('textarea', { id: 'draft-text', rows: 12, 'data-testid': 'draft-text', 'aria-describedby': 'draft-count' });
  const count = h('p', { id: 'draft-count', class: 'muted draft-count', 'data-testid': 'draft-count', 'aria-live': 'polite' });
  const scope = h('select', { id: 'draft-scope', 'data-testid': 'draft-scope' },
    SCOPES.map(([value, label]) => h('option', { value }, label)));
  const button = h('button', { type: 'submit', class: 'primary', 'data-testid': 'draft-check' }, 'Check');
  const update = () => {
    const { label, sendable } = draftCount(text.value);
    count.textContent = label;
    count.classList.toggle('over', draftLength(text.value) > MAX_DRAFT_CHARS);
    button.disabled = !sendable;
  };
  text.addEventListener('input', update);
  update();
  const form = h('form', { class: 'draft-form', 'data-testid': 'draft-form' },
    h('label', { for: 'draft-text' }, 'Draft'), text, count,
    h('label', { for: 'draft-scope' }, 'Check against'), scope, h('div', null, button));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!draftCount(text.value).sendable) return;
    const chosen = scope.value as Scope;
    button.disabled = true;
    void showResults(results, check({ text: text.value, ...(chosen === 'mine' ? {} : { query: { scope: chosen } }) }))
      .finally(update);
  });
  return form;
}

/** Mounts the page in `root`; `check` is the callable (a test passes its own server). */
export function mountDraftCheck(root: HTMLElement, check: Check = checkDraft): () => void {
  const results = h('div', { class: 'draft-results', 'data-testid': 'draft-results' });
  replaceChildren(root, h('section', { class: 'panel draft-page', 'data-testid': 'draft-page' },
    h('h1', null, 'Check a draft'),
    h('p', { class: 'muted' },
      'Paste a draft: each claim comes back supported by your cards, conflicting with one of them, or unsupported, with the cards and passages.'),
    draftForm(results, check), results));
  document.title = 'Check a draft · Cardchat';
  return () => replaceChildren(root);
}
