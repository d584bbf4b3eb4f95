// Settings, one section: leaving. Deleting the account removes every card, chat, key
// and token of the user, then the account; typing one's email confirms it.
import { deleteAccount } from '../data/api';
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { signOutNow } from '../data/session';

export function mountDeleteAccount(root: HTMLElement, email: string): () => void {
  const typed = h('input', {
    type: 'email', name: 'confirm-email', autocomplete: 'off', placeholder: email,
    'data-testid': 'delete-account-email', 'aria-label': 'Type your email to confirm',
  });
  const submit = h('button', { type: 'submit', class: 'danger', disabled: true, 'data-testid': 'delete-account' },
    'Delete my account');
  const status = h('p', { class: 'muted', role: 'status', 'data-testid': 'delete-account-status' });
  typed.oninput = () => { submit.disabled = typed.value.trim().toLowerCase() !== email.toLowerCase(); };
  const form = h('form', { class: 'token-form' }, typed, submit);
  form.onsubmit = async (e) => {
    e.preventDefault();
    submit.disabled = true;
    status.textContent = 'Deleting your cards, chats and account…';
    try {
      await deleteAccount({});
      await signOutNow();
      status.textContent = 'Your account and everything in it are deleted.';
    } catch (err) {
      submit.disabled = false;
      status.textContent = describeError(err, 'Deleting your account');
    }
  };
  replaceChildren(root, h('section', null,
    h('h2', null, 'Delete your account'),
    h('p', { class: 'muted' },
      'This deletes all your cards (shared and public ones too), your chats, keys and tokens, then your account. ',
      'Chats of other people lose your cards. It cannot be undone. Type your email to confirm.'),
    form, status));
  return () => {};
}
