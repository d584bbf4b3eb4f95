// /settings: the signed-in user's own API keys (bring your own key), their
// personal access tokens for MCP clients, and deleting the account, one section each.
import { h, replaceChildren } from '../app/dom';
import type { Session } from '../data/session';
import { mountAccessTokens } from './accesstokens';
import { mountApiKeys } from './apikeys';
import { mountDeleteAccount } from './deleteaccount';
import { renderSignIn } from './signin';

export function mountSettings(root: HTMLElement, s: Session): () => void {
  if (!s.user) {
    renderSignIn(root, 'Sign in to manage your API keys and access tokens.');
    return () => {};
  }
  const keys = h('div');
  const tokens = h('div');
  const leave = h('div');
  replaceChildren(root, h('div', { class: 'stack' }, h('h1', null, 'Settings'), keys, tokens, leave));
  const unmounts = [
    mountApiKeys(keys),
    mountAccessTokens(tokens, s.user.uid),
    mountDeleteAccount(leave, s.user.email || s.user.uid),
  ];
  return () => unmounts.forEach((unmount) => unmount());
}
