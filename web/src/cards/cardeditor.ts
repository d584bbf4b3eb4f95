// The owner's card editor: a new card or one of theirs; title,
// Markdown body with a live preview (rendered and sanitised like every card),
// tags, visibility and viewers. Saves straight to Firestore under the rules;
// delete can be undone for a few seconds.
//
// Viewers are typed as email addresses; the card keeps uids. resolveViewers
// (a callable: Auth is the server's) names the card's viewers when it opens
// and looks up new addresses when it is saved (viewerentries.ts).
import { resolveViewers } from '../data/api';
import { CARD_LIMITS } from '../generated/cardlimits';
import { cardProblems, type CardFields, type Visibility } from './cardvalidity';
import { isOwnCardId } from './cardids';
import { createCard, deleteCard, updateCard } from '../data/cardwrites';
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { renderMarkdown } from '../app/markdown';
import { getCard } from '../data/cardbyid';
import { cardEditPath, router } from '../app/router';
import type { Session } from '../data/session';
import { entriesToUids, isEmail, shownEntries, type ViewerBook } from './viewerentries';
import { showToast } from '../app/toast';
import { takeDraft } from './carddraft';
import type { DerivedFrom } from '../data/shapes';

const UNDO_MS = 6000;

function splitList(text: string): string[] {
  return [...new Set(text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean))];
}

export function mountCardEditor(root: HTMLElement, id: string | null, s: Session): () => void {
  let alive = true;
  const uid = s.user!.uid;
  if (id === null) {
    const draft = takeDraft();
    new CardEditor(root, uid, null, draft?.fields ?? { title: '', body: '', visibility: 'private', viewers: [], tags: [] }, draft?.derivedFrom ?? null);
  } else {
    replaceChildren(root, h('p', { class: 'muted', role: 'status' }, 'Loading card…'));
    getCard(id).then(
      (card) => {
        if (!alive) return;
        if (!card || card.owner !== uid) {
          replaceChildren(root, h('section', { class: 'panel' }, h('p', { role: 'alert' }, 'Only your own cards can be edited.')));
          return;
        }
        const editor = new CardEditor(root, uid, id, card, card.derived_from);
        if (card.viewers.length) void editor.nameViewers();
      },
      (err) => alive && replaceChildren(root, h('p', { role: 'alert' }, `Could not load the card: ${describeError(err)}`)),
    );
  }
  return () => { alive = false; };
}

class CardEditor {
  private readonly title: HTMLInputElement;
  private readonly body = h('textarea', { id: 'card-body', rows: 16, 'data-testid': 'edit-body' });
  private readonly tags: HTMLInputElement;
  private readonly visibility = h('select', { id: 'card-visibility', 'data-testid': 'edit-visibility' },
    CARD_LIMITS.visibilities.map((v) => h('option', { value: v }, v)));
  private readonly viewers = h('textarea', { id: 'card-viewers', rows: 2, 'data-testid': 'edit-viewers' });
  private readonly viewersField: HTMLElement;
  private readonly preview = h('div', { class: 'markdown card-preview', 'data-testid': 'edit-preview' });
  private readonly problems = h('ul', { class: 'error', 'data-testid': 'edit-problems' });
  private readonly save = h('button', { type: 'submit', class: 'primary', 'data-testid': 'edit-save' }, 'Save');
  private readonly status = h('p', { class: 'muted', role: 'status' });
  private readonly book: ViewerBook = new Map();

  constructor(
    root: HTMLElement, private readonly uid: string, private readonly id: string | null, card: CardFields,
    private readonly derivedFrom: DerivedFrom | null = null,
  ) {
    this.title = h('input', { id: 'card-title', value: card.title, 'data-testid': 'edit-title', maxlength: CARD_LIMITS.title_max_chars });
    this.tags = h('input', { id: 'card-tags', value: card.tags.join(', '), 'data-testid': 'edit-tags' });
    this.body.value = card.body;
    this.visibility.value = card.visibility;
    this.viewers.value = card.viewers.join('\n');
    this.viewersField = h('div', { class: 'field' }, h('label', { for: 'card-viewers' }, 'Viewers (email addresses, one a line)'), this.viewers,
      h('p', { class: 'hint' }, 'People given here read this private card. Their addresses are looked up when you save; the card keeps only their account ids.'));
    const form = h('form', { class: 'panel card-editor', 'data-testid': 'card-editor' },
      h('h1', null, this.id ? 'Edit card' : derivedFrom ? 'New card from an answer' : 'New card'),
      h('div', { class: 'field' }, h('label', { for: 'card-title' }, 'Title'), this.title),
      h('div', { class: 'editor-split' },
        h('div', { class: 'field' }, h('label', { for: 'card-body' }, 'Text (Markdown)'), this.body),
        h('div', { class: 'field' }, h('span', { class: 'label' }, 'Preview'), this.preview)),
      h('div', { class: 'field' }, h('label', { for: 'card-tags' }, 'Tags (comma-separated)'), this.tags),
      h('div', { class: 'field' }, h('label', { for: 'card-visibility' }, 'Visibility'), this.visibility),
      this.viewersField,
      this.problems,
      h('div', { class: 'action-bar' }, this.save,
        h('a', { href: this.id ? `/card/${encodeURIComponent(this.id)}` : '/' }, 'Cancel'),
        h('span', { class: 'spacer' }),
        this.id ? h('button', { type: 'button', class: 'danger', 'data-testid': 'edit-delete', onclick: () => void this.remove() }, 'Delete') : null),
      this.status);
    form.addEventListener('submit', (e) => { e.preventDefault(); void this.submit(); });
    form.addEventListener('input', () => this.refresh());
    replaceChildren(root, form);
    this.refresh();
    this.title.focus();
  }

  private entries(): string[] {
    return this.visibility.value === CARD_LIMITS.viewers_visibility ? splitList(this.viewers.value) : [];
  }

  /** The card as typed, with `viewers` (uids) given. */
  private fields(viewers: string[]): CardFields {
    return {
      title: this.title.value.trim(),
      body: this.body.value,
      visibility: this.visibility.value as Visibility,
      viewers,
      tags: splitList(this.tags.value),
    };
  }

  /** The card's viewers by address, where the server names them (the uid otherwise). */
  async nameViewers(): Promise<void> {
    try {
      const asked = this.viewers.value;
      const out = await resolveViewers({ card_id: this.id! });
      const shown = shownEntries(out.viewers, this.book).join('\n');
      if (this.viewers.value === asked) this.viewers.value = shown; // not over what the user typed meanwhile
      this.refresh();
    } catch (err) {
      this.status.textContent = `Could not name the viewers (their ids are shown): ${describeError(err)}`;
    }
  }

  private refresh(): void {
    this.preview.innerHTML = renderMarkdown(this.body.value);
    this.viewersField.hidden = this.visibility.value !== CARD_LIMITS.viewers_visibility;
    // An address not yet looked up stands in for its uid (a uid is at most 128 characters; an address may be longer).
    const viewers = this.entries().map((e) => (isEmail(e) ? this.book.get(e.toLowerCase()) ?? 'pending' : e));
    const problems = cardProblems(this.fields(viewers) as unknown as Record<string, unknown>);
    replaceChildren(this.problems, problems.map((p) => h('li', null, `${p.field} ${p.why}`)));
    this.save.disabled = problems.length > 0;
  }

  private async submit(): Promise<void> {
    this.save.disabled = true;
    this.status.textContent = 'Saving…';
    try {
      const { uids, unknown } = await entriesToUids(this.entries(), this.book, (emails) => resolveViewers({ emails }));
      if (unknown.length) {
        this.status.textContent = `No Cardchat account has the address ${unknown.join(', ')}: correct or remove it.`;
        this.save.disabled = false;
        return;
      }
      const fields = this.fields(uids);
      const id = this.id ?? await createCard(this.uid, fields, undefined, this.derivedFrom);
      if (this.id) await updateCard(this.id, fields);
      router.navigate(`/card/${encodeURIComponent(id)}`);
    } catch (err) {
      this.status.textContent = `Could not save: ${describeError(err)}`;
      this.save.disabled = false;
    }
  }

  /**
   * Deleted at once; "Undo" writes it back under the same id (as a new card:
   * `created` is now), or a new one for an id from before namespaces, which
   * nobody may create again.
   */
  private async remove(): Promise<void> {
    const id = this.id!;
    const saved = this.storedFields();
    try {
      await deleteCard(id);
    } catch (err) {
      this.status.textContent = `Could not delete: ${describeError(err)}`;
      return;
    }
    router.navigate('/');
    showToast(`Deleted “${saved.title}”.`, {
      label: 'Undo',
      run: () => void createCard(this.uid, saved, isOwnCardId(this.uid, id) ? id : undefined, this.derivedFrom).then(
        (restored) => router.navigate(cardEditPath(restored)),
        (err) => showToast(`Could not restore the card: ${describeError(err)}`),
      ),
    }, UNDO_MS);
  }

  /** The card as it stands, for undo: viewers as uids, none looked up (an unknown address is dropped). */
  private storedFields(): CardFields {
    const uids = this.entries().map((e) => (isEmail(e) ? this.book.get(e.toLowerCase()) : e)).filter((u): u is string => !!u);
    return this.fields(uids);
  }
}
