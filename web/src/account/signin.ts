// Sign-in: email/password against the Auth emulator, Google in production.
import { GoogleAuthProvider, signInWithEmailAndPassword, signInWithPopup } from 'firebase/auth';
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { auth, usingEmulators } from '../data/firebase';

export function renderSignIn(root: HTMLElement, reason = 'Sign in to see your cards and chats.'): void {
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'signin-error' });
  let body: HTMLElement;
  if (usingEmulators) {
    const email = h('input', { id: 'signin-email', type: 'email', name: 'email', autocomplete: 'username', required: true });
    const password = h('input', {
      id: 'signin-password', type: 'password', name: 'password', autocomplete: 'current-password', required: true,
    });
    const submit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'signin-submit' }, 'Sign in');
    body = h(
      'form',
      {
        class: 'stack',
        'data-testid': 'signin-form',
        onsubmit: async (e: Event) => {
          e.preventDefault();
          submit.disabled = true;
          error.textContent = '';
          try {
            await signInWithEmailAndPassword(auth, email.value.trim(), password.value);
          } catch (err) {
            error.textContent = describeError(err, 'Signing in');
            submit.disabled = false;
          }
        },
      },
      h('label', { for: 'signin-email' }, 'Email'),
      email,
      h('label', { for: 'signin-password' }, 'Password'),
      password,
      submit,
      h('p', { class: 'hint', 'data-testid': 'demo-hint' },
        'Local emulator: sign in as ', h('code', null, 'demo@cardchat.test'), ' with password ', h('code', null, 'cardchat-demo'), '.'),
    );
  } else {
    body = h('button', {
      type: 'button',
      class: 'primary',
      'data-testid': 'signin-google',
      onclick: async () => {
        error.textContent = '';
        try {
          await signInWithPopup(auth, new GoogleAuthProvider());
        } catch (err) {
          error.textContent = describeError(err, 'Signing in');
        }
      },
    }, 'Sign in with Google');
  }
  replaceChildren(root, h('section', { class: 'signin panel', 'data-testid': 'signin' },
    h('h1', null, 'Sign in'), h('p', null, reason), body, error));
  root.querySelector<HTMLInputElement>('input, button')?.focus();
}
