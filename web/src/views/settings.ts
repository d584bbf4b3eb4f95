// /settings: the signed-in user's own API keys (bring your own key) and their
// personal access tokens for MCP clients, one section each.
import { h, replaceChildren } from '../dom';
import type { Session } from '../session';
import { mountAccessTokens } from './accesstokens';
import { mountApiKeys } from './apikeys';
import { renderSignIn } from './signin';

export function mountSettings(root: HTMLElement, s: Session): () => void {
  if (!s.user) {
    renderSignIn(root, 'Sign in to manage your API keys and access tokens.');
    return () => {};
  }
  const keys = h('div');
  const tokens = h('div');
  replaceChildren(root, h('div', { class: 'stack' }, h('h1', null, 'Settings'), keys, tokens));
  const unmounts = [mountApiKeys(keys), mountAccessTokens(tokens, s.user.uid)];
  return () => unmounts.forEach((unmount) => unmount());
}
