// Settings, one section: leaving. Deleting the account removes every card, chat, key
// and token of the user, then the account; typing one's email confirms it. The server
// asks for a recent sign-in (an ID token left open elsewhere must not delete an account):
// then the section signs the user in again and retries.
import { deleteAccount } from '../data/api';
import { h, replaceChildren } from '../app/dom';
import { describeError, errorCode, type CodedError } from '../app/errors';
import { usingEmulators } from '../data/firebase';
import { signInAgain, signOutNow } from '../data/session';

/** deleteAccount's refusal of a sign-in too old (access/account_deletion.py SIGN_IN_AGAIN). */
export function needsSignInAgain(err: unknown): boolean {
  return errorCode(err) === 'failed-precondition' && /^sign_in:/.test((err as CodedError | null)?.message ?? '');
}

export function mountDeleteAccount(root: HTMLElement, email: string): () => void {
  const typed = h('input', {
    type: 'email', name: 'confirm-email', autocomplete: 'off', placeholder: email,
    'data-testid': 'delete-account-email', 'aria-label': 'Type your email to confirm',
  });
  const submit = h('button', { type: 'submit', class: 'danger', disabled: true, 'data-testid': 'delete-account' },
    'Delete my account');
  const status = h('p', { class: 'muted', role: 'status', 'data-testid': 'delete-account-status' });
  const again = signInAgainForm(status, () => remove());
  typed.oninput = () => { submit.disabled = typed.value.trim().toLowerCase() !== email.toLowerCase(); };
  const form = h('form', { class: 'token-form' }, typed, submit);
  async function remove(): Promise<void> {
    submit.disabled = true;
    again.hidden = true;
    status.textContent = 'Deleting your cards, chats and account…';
    try {
      await deleteAccount({});
      await signOutNow();
      status.textContent = 'Your account and everything in it are deleted.';
    } catch (err) {
      submit.disabled = false;
      again.hidden = !needsSignInAgain(err);
      status.textContent = needsSignInAgain(err)
        ? 'To delete your account, sign in again first.'
        : describeError(err, 'Deleting your account');
    }
  }
  form.onsubmit = (e) => { e.preventDefault(); void remove(); };
  replaceChildren(root, h('section', null,
    h('h2', null, 'Delete your account'),
    h('p', { class: 'muted' },
      'This deletes all your cards (shared and public ones too), your chats, keys and tokens, then your account. ',
      'Chats of other people lose your cards. It cannot be undone. Type your email to confirm.'),
    form, again, status));
  return () => {};
}

/** "Sign in again": a password against the emulators, Google's popup in production; then `retry`. */
function signInAgainForm(status: HTMLElement, retry: () => Promise<void>): HTMLFormElement {
  const password = h('input', {
    type: 'password', name: 'password', autocomplete: 'current-password', 'aria-label': 'Your password',
    'data-testid': 'delete-account-password',
  });
  const button = h('button', { type: 'submit', 'data-testid': 'delete-account-sign-in' }, 'Sign in again and delete');
  const form = h('form', { class: 'token-form', hidden: true }, ...(usingEmulators ? [password] : []), button);
  form.onsubmit = async (e) => {
    e.preventDefault();
    button.disabled = true;
    try {
      await signInAgain(password.value);
      await retry();
    } catch (err) {
      status.textContent = describeError(err, 'Signing in');
    } finally {
      button.disabled = false;
    }
  };
  return form;
}
