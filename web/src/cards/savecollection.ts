// "Save as collection" on the Cards page: the current filter (or its explicit
// id list) under a name, with standing instructions to the model.
import { h } from '../app/dom';
import { describeError } from '../app/errors';
import { collectionPath, router } from '../app/router';
import { collectionProblem, LIMITS, saveCollection, type NewCollection } from '../data/savedcollections';
import { describeCollection, type CardFilter } from './cardfilter';
import { filterQuery } from './collectionquery';

/** The button; `filter` is read when it is clicked. */
export function saveCollectionButton(uid: string, filter: () => CardFilter): HTMLElement {
  const button = h('button', { type: 'button', 'data-testid': 'save-collection' }, 'Save as collection');
  button.addEventListener('click', () => openSaveDialog(uid, filter()));
  return button;
}

function openSaveDialog(uid: string, f: CardFilter): void {
  const name = h('input', { id: 'collection-name', type: 'text', required: true, maxlength: LIMITS.name_max_chars,
    'data-testid': 'collection-name', value: f.tag ?? f.text.trim() });
  const instructions = h('textarea', { id: 'collection-instructions', rows: 4, maxlength: LIMITS.instructions_max_chars,
    'data-testid': 'collection-instructions', placeholder: 'Optional: how answers in this collection should be written' });
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'collection-error' });
  const save = h('button', { type: 'submit', class: 'primary', 'data-testid': 'collection-save' }, 'Save');
  const cancel = h('button', { type: 'button' }, 'Cancel');
  const form = h('form', { method: 'dialog', class: 'stack' },
    h('h2', { id: 'save-collection-title' }, 'Save as collection'),
    h('p', { class: 'hint' }, describeCollection(f, null)),
    h('label', { for: 'collection-name' }, 'Name'), name,
    h('label', { for: 'collection-instructions' }, 'Instructions to the model (never shown to people you share chats with)'),
    instructions, error, h('div', { class: 'actions' }, cancel, save));
  const dialog = h('dialog', { class: 'dialog', 'data-testid': 'save-collection-dialog', 'aria-labelledby': 'save-collection-title' }, form);
  document.body.appendChild(dialog);
  cancel.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => dialog.remove());
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const c: NewCollection = { name: name.value, instructions: instructions.value, query: filterQuery(f), cardIds: f.ids };
    error.textContent = collectionProblem(c);
    if (error.textContent) return;
    save.disabled = true;
    try {
      const id = await saveCollection(uid, c);
      dialog.close();
      router.navigate(collectionPath(id));
    } catch (err) {
      error.textContent = describeError(err, 'Saving the collection');
      save.disabled = false;
    }
  });
  dialog.showModal();
  name.focus();
}
