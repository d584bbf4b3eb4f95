// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import type { CheckDraftRequest, DraftClaim } from '../data/api';
import { claimItem, draftCount, draftLength, MAX_DRAFT_CHARS, mountDraftCheck, summary, VERDICTS } from './draftcheck';

const CLAIMS: DraftClaim[] = [
  { text: 'Git rebase replays commits.', verdict: 'supported', cards: [{ id: 'u_rebase', title: 'Rebasing', passage: 'Git rebase replays your commits.' }] },
  { text: 'Python 3.12 came out in 2022.', verdict: 'conflicting', cards: [{ id: 'u_py', title: 'Python', passage: 'Python 3.12 came out in 2023.' }] },
  { text: 'Sourdough needs a starter.', verdict: 'unsupported', cards: [] },
];

/** Resolves when the page has painted what the server answered. */
async function settled(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('draftCount', () => {
  it('counts characters as the server does, and refuses an empty or over-long draft', () => {
    expect(MAX_DRAFT_CHARS).toBe(20_000);
    expect(draftLength('  a😀b \n')).toBe(3); // trimmed; one character for the emoji, as Python counts it
    expect(draftCount('')).toEqual({ label: '0 / 20,000 characters', sendable: false });
    expect(draftCount('x'.repeat(MAX_DRAFT_CHARS))).toEqual({ label: '20,000 / 20,000 characters', sendable: true });
    expect(draftCount('x'.repeat(MAX_DRAFT_CHARS + 2))).toEqual({ label: '20,002 / 20,000 characters (2 over the limit)', sendable: false });
  });
});

describe('results', () => {
  it('says each verdict in words beside a hidden icon, with the cards linked and their passages', () => {
    const item = claimItem(CLAIMS[1]);
    const verdict = item.querySelector('[data-testid=draft-verdict]')!;
    expect(verdict.textContent?.trim()).toBe(VERDICTS.conflicting.label);
    expect(verdict.querySelector('svg')?.getAttribute('aria-hidden')).toBe('true');
    expect(item.querySelector('a')?.getAttribute('href')).toBe('/card/u_py');
    expect(item.querySelector('blockquote')?.textContent).toBe('Python 3.12 came out in 2023.');
    expect(claimItem(CLAIMS[2]).querySelector('ul')).toBeNull();
  });

  it('sums the verdicts up', () => {
    expect(summary(CLAIMS)).toBe('3 claims: 1 supported, 1 conflicting, 1 unsupported');
    expect(summary([])).toMatch(/^No claims found/);
  });
});

describe('the page', () => {
  function mount(answer: () => Promise<{ claims: DraftClaim[] }>) {
    const sent: CheckDraftRequest[] = [];
    const root = document.createElement('div');
    document.body.replaceChildren(root); // a form submits only in a document
    mountDraftCheck(root, (req) => {
      sent.push(req);
      return answer();
    });
    const text = root.querySelector<HTMLTextAreaElement>('[data-testid=draft-text]')!;
    const button = root.querySelector<HTMLButtonElement>('[data-testid=draft-check]')!;
    const type = (value: string) => {
      text.value = value;
      text.dispatchEvent(new Event('input'));
    };
    return { root, sent, type, button };
  }

  it('checks the typed draft against the reader\'s own cards unless another scope is chosen, and lists each claim', async () => {
    const { root, sent, type, button } = mount(() => Promise.resolve({ claims: CLAIMS }));
    expect(button.disabled).toBe(true);
    type('Git rebase replays commits.');
    expect(button.disabled).toBe(false);
    button.click();
    await settled();
    expect(sent).toEqual([{ text: 'Git rebase replays commits.' }]);
    const shown = Array.from(root.querySelectorAll('[data-testid=draft-claim]')).map((li) => li.getAttribute('data-verdict'));
    expect(shown).toEqual(['supported', 'conflicting', 'unsupported']);
    root.querySelector<HTMLSelectElement>('[data-testid=draft-scope]')!.value = 'mine_and_shared';
    button.click();
    await settled();
    expect(sent[1]).toEqual({ text: 'Git rebase replays commits.', query: { scope: 'mine_and_shared' } });
  });

  it('will not send a draft over the limit, and says why a check failed', async () => {
    const { root, sent, type, button } = mount(() => Promise.reject(new Error('text: too long')));
    type('x'.repeat(MAX_DRAFT_CHARS + 1));
    expect(button.disabled).toBe(true);
    expect(root.querySelector('[data-testid=draft-count]')?.classList.contains('over')).toBe(true);
    root.querySelector('form')!.dispatchEvent(new Event('submit', { cancelable: true }));
    expect(sent).toEqual([]);
    type('A draft of a few words here.');
    button.click();
    await settled();
    expect(root.querySelector('[data-testid=draft-error]')?.textContent).toMatch(/^Could not check the draft/);
  });
});
