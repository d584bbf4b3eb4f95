// A modal that asks before a destructive action: the action runs on confirm, and
// its failure is shown in the dialog, which stays open for another try.
import { h } from './dom';
import { describeError } from './errors';

export interface Confirmation {
  /** The dialog's data-testid; its buttons are `${ids}-cancel` and `${ids}-confirm`. */
  testid: string;
  ids: string;
  title: string;
  text: string;
  /** The confirm button's label, and what it says while the action runs. */
  action: string;
  busy?: string;
  /** Names the action in an error ("Deleting failed: …"). */
  doing: string;
  run: () => Promise<void>;
}

export function confirmAction(c: Confirmation): void {
  const error = h('p', { class: 'error', role: 'alert' });
  const cancel = h('button', { type: 'button', 'data-testid': `${c.ids}-cancel` }, 'Cancel');
  const confirm = h('button', { type: 'submit', class: 'danger', 'data-testid': `${c.ids}-confirm` }, c.action);
  const titleId = `${c.testid}-title`;
  const form = h('form', { method: 'dialog', class: 'stack' },
    h('h2', { id: titleId }, c.title), h('p', null, c.text), error, h('div', { class: 'actions' }, cancel, confirm));
  const dialog = h('dialog', { class: 'dialog', 'data-testid': c.testid, 'aria-labelledby': titleId }, form);
  document.body.appendChild(dialog);
  cancel.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => dialog.remove());
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    confirm.disabled = cancel.disabled = true;
    if (c.busy) confirm.textContent = c.busy;
    try {
      await c.run();
      dialog.close();
    } catch (err) {
      error.textContent = describeError(err, c.doing);
      confirm.disabled = cancel.disabled = false;
      confirm.textContent = c.action;
    }
  });
  dialog.showModal();
  cancel.focus();
}
