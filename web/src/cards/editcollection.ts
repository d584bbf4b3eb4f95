// A saved collection's owner edits it (name, instructions, and the filter of
// a query collection; an id list keeps its ids) or deletes it. Chats made from
// a deleted collection stay: their header says the collection is gone.
import { h } from '../app/dom';
import { describeError } from '../app/errors';
import { router } from '../app/router';
import type { CollectionQuery } from '../data/api';
import {
  collectionProblem, deleteCollection, LIMITS, updateCollection, type NewCollection, type SavedCollection,
} from '../data/savedcollections';
import { collectionForm } from './collectionform';

type Scope = NonNullable<CollectionQuery['scope']>;
const SCOPES: Array<[Scope, string]> = [
  ['mine', 'My own cards'], ['shared', 'Cards shared with me'], ['mine_and_shared', 'My cards and those shared with me'],
  ['owner', 'One person’s public cards'],
];

/** The filter's fields for a query collection; `read` gives the query they describe. */
function filterFields(q: CollectionQuery): { nodes: HTMLElement[]; read: () => CollectionQuery } {
  const current = q.scope ?? 'mine';
  // "One person's public cards" names its person: offered only to the collection that has one.
  const offered = SCOPES.filter(([s]) => s !== 'owner' || current === 'owner');
  const scope = h('select', { id: 'collection-scope', 'data-testid': 'collection-scope' },
    offered.map(([s, label]) => h('option', { value: s, selected: s === current }, label)));
  const tag = h('input', { id: 'collection-tag', type: 'text', maxlength: LIMITS.tag_max_chars, 'data-testid': 'collection-tag',
    value: q.tag ?? '' });
  const text = h('input', { id: 'collection-text', type: 'search', maxlength: LIMITS.text_max_chars, 'data-testid': 'collection-text',
    value: q.text ?? '' });
  const read = (): CollectionQuery => {
    const s = scope.value as Scope;
    const out: CollectionQuery = { scope: s };
    if (s === 'owner' && q.owner) out.owner = q.owner;
    if (tag.value.trim()) out.tag = tag.value.trim();
    if (text.value.trim()) out.text = text.value.trim();
    return out;
  };
  return { read, nodes: [h('label', { for: 'collection-scope' }, 'Cards'), scope, h('label', { for: 'collection-tag' }, 'Tag'), tag,
    h('label', { for: 'collection-text' }, 'Words in the card'), text] };
}

export function openEditCollection(c: SavedCollection): void {
  const filter = c.query ? filterFields(c.query) : null;
  const { dialog, form, name, instructions, error, save } = collectionForm({
    heading: 'Edit collection', hint: c.query ? 'Chats already made from it keep their cards.' : 'Its listed cards stay as they are.',
    name: c.name, instructions: c.instructions, testId: 'edit-collection-dialog', extra: filter?.nodes,
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const next: NewCollection = { name: name.value, instructions: instructions.value, query: filter ? filter.read() : null,
      cardIds: filter ? null : c.card_ids };
    error.textContent = collectionProblem(next);
    if (error.textContent) return;
    save.disabled = true;
    try {
      await updateCollection(c.id, next);
      dialog.close();
    } catch (err) {
      error.textContent = describeError(err, 'Saving the collection');
      save.disabled = false;
    }
  });
  dialog.showModal();
  name.focus();
}

export function confirmDeleteCollection(c: SavedCollection): void {
  const error = h('p', { class: 'error', role: 'alert' });
  const cancel = h('button', { type: 'button', 'data-testid': 'delete-collection-cancel' }, 'Cancel');
  const confirm = h('button', { type: 'submit', class: 'danger', 'data-testid': 'delete-collection-confirm' }, 'Delete collection');
  const form = h('form', { method: 'dialog', class: 'stack' },
    h('h2', { id: 'delete-collection-title' }, 'Delete this collection?'),
    h('p', null, `“${c.name}” and its instructions will be removed. Its cards and the chats made from it stay.`),
    error, h('div', { class: 'actions' }, cancel, confirm));
  const dialog = h('dialog', { class: 'dialog', 'data-testid': 'confirm-delete-collection', 'aria-labelledby': 'delete-collection-title' }, form);
  document.body.appendChild(dialog);
  cancel.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => dialog.remove());
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    confirm.disabled = cancel.disabled = true;
    try {
      await deleteCollection(c.id);
      dialog.close();
      router.navigate('/collections', { replace: true });
    } catch (err) {
      error.textContent = describeError(err, 'Deleting the collection');
      confirm.disabled = cancel.disabled = false;
    }
  });
  dialog.showModal();
  cancel.focus();
}
