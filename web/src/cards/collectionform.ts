// The dialog of a saved collection's form: its name and its instructions to
// the model, shared by "Save as collection" and "Edit collection".
import { h } from '../app/dom';
import { LIMITS } from '../data/savedcollections';

export interface CollectionForm {
  dialog: HTMLDialogElement;
  form: HTMLFormElement;
  name: HTMLInputElement;
  instructions: HTMLTextAreaElement;
  error: HTMLElement;
  save: HTMLButtonElement;
}

/** A modal dialog (removed once closed) with the name and instructions fields, `extra` after them. */
export function collectionForm(o: { heading: string; hint: string; name: string; instructions: string; testId: string;
  extra?: HTMLElement[] }): CollectionForm {
  const name = h('input', { id: 'collection-name', type: 'text', required: true, maxlength: LIMITS.name_max_chars,
    'data-testid': 'collection-name', value: o.name });
  const instructions = h('textarea', { id: 'collection-instructions', rows: 4, maxlength: LIMITS.instructions_max_chars,
    'data-testid': 'collection-instructions', placeholder: 'Optional: how answers in this collection should be written' });
  instructions.value = o.instructions;
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'collection-error' });
  const save = h('button', { type: 'submit', class: 'primary', 'data-testid': 'collection-save' }, 'Save');
  const cancel = h('button', { type: 'button', 'data-testid': 'collection-cancel' }, 'Cancel');
  const form = h('form', { method: 'dialog', class: 'stack' },
    h('h2', { id: `${o.testId}-title` }, o.heading),
    h('p', { class: 'hint' }, o.hint),
    h('label', { for: 'collection-name' }, 'Name'), name,
    h('label', { for: 'collection-instructions' }, 'Instructions to the model (never shown to people you share chats with)'),
    instructions, ...(o.extra ?? []), error, h('div', { class: 'actions' }, cancel, save));
  const dialog = h('dialog', { class: 'dialog', 'data-testid': o.testId, 'aria-labelledby': `${o.testId}-title` }, form);
  document.body.appendChild(dialog);
  cancel.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => dialog.remove());
  return { dialog, form, name, instructions, error, save };
}
