// Settings, one section: personal access tokens for the card MCP endpoint. A new token is
// shown once, here, with a copy button; the list shows label, created and last
// used (never the token), each with Revoke.
import { createAccessToken, revokeAccessToken } from '../data/api';
import { mcpUrl } from '../data/config';
import { config } from '../data/firebase';
import { copyText, flash, h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { REGION } from '../data/names';
import { watchAccessTokens } from '../data/accesstokenlist';
import type { AccessTokenDoc } from '../data/shapes';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function copyButton(text: string, testId: string): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'small', 'data-testid': testId }, 'Copy');
  button.onclick = () => void copyText(text).then((ok) => flash(button, ok ? 'Copied' : 'Copy failed'));
  return button;
}

function renderTokens(el: HTMLElement, tokens: AccessTokenDoc[], status: HTMLElement): void {
  if (!tokens.length) {
    replaceChildren(el, h('p', { class: 'muted', 'data-testid': 'no-tokens' }, 'No access tokens yet.'));
    return;
  }
  replaceChildren(el, h('ul', { class: 'token-items', 'data-testid': 'token-list' }, tokens.map((t) => {
    const revoke = h('button', { type: 'button', class: 'small danger', 'data-testid': 'token-revoke' }, 'Revoke');
    revoke.onclick = async () => {
      if (!confirm(`Revoke "${t.label}"? Clients using it stop working at once.`)) return;
      revoke.disabled = true;
      try {
        await revokeAccessToken({ id: t.id });
      } catch (err) {
        revoke.disabled = false;
        status.textContent = describeError(err, 'Revoking the token');
      }
    };
    return h('li', { 'data-testid': 'token-item', 'data-token-id': t.id },
      h('span', { class: 'token-label' }, t.label),
      ' ', h('span', { class: 'token-scope', 'data-testid': 'token-scope' }, t.scope === 'write' ? 'read and write' : 'read only'),
      h('span', { class: 'muted' },
        ` · created ${t.created ? when.format(t.created) : '…'}`,
        ` · last used ${t.last_used ? when.format(t.last_used) : 'never'}`),
      revoke);
  })));
}

function createForm(shown: HTMLElement, status: HTMLElement): HTMLFormElement {
  const label = h('input', {
    type: 'text', name: 'label', required: 'true', maxlength: '100',
    placeholder: 'e.g. Claude Desktop on my laptop', 'data-testid': 'token-label', 'aria-label': 'Token name',
  });
  const scope = h('select', { name: 'scope', 'data-testid': 'token-scope-choice', 'aria-label': 'What the token may do' },
    h('option', { value: 'read' }, 'Read only'),
    h('option', { value: 'write' }, 'Read and write cards'));
  const submit = h('button', { type: 'submit', 'data-testid': 'token-create' }, 'Create token');
  const form = h('form', { class: 'token-form' }, label, scope, submit);
  form.onsubmit = async (e) => {
    e.preventDefault();
    submit.disabled = true;
    status.textContent = '';
    try {
      const { token } = await createAccessToken({ label: label.value, scope: scope.value === 'write' ? 'write' : 'read' });
      label.value = '';
      replaceChildren(shown, h('div', { class: 'token-once', role: 'status' },
        h('p', null, 'Your new token. Copy it now: it is shown only this once.'),
        h('code', { 'data-testid': 'token-value' }, token), ' ', copyButton(token, 'token-copy')));
    } catch (err) {
      status.textContent = describeError(err, 'Creating the token');
    } finally {
      submit.disabled = false;
    }
  };
  return form;
}

export function mountAccessTokens(root: HTMLElement, uid: string): () => void {
  const url = mcpUrl(config, REGION);
  const syncUrl = mcpUrl(config, REGION, 'syncCards');
  const shown = h('div', { 'data-testid': 'token-shown' });
  const status = h('p', { class: 'error', role: 'alert', 'data-testid': 'token-error' });
  const list = h('div', null, h('p', { class: 'muted' }, 'Loading tokens…'));
  replaceChildren(root, h('section', { class: 'panel settings' },
    h('h2', null, 'Access tokens for AI tools'),
    h('p', null, 'A personal access token lets an MCP client (Claude Desktop, Claude Code, Cursor, …) search and read ',
      'your cards and chats as you, with your permissions and nothing more. A read and write token may also create ',
      'and update your own cards (cardchat-sync, an AI tool saving a note). Revoke a token and it stops at once.'),
    h('p', null, 'MCP server URL: ', h('code', { 'data-testid': 'mcp-url' }, url), ' ', copyButton(url, 'mcp-url-copy')),
    h('p', null, 'Folder sync URL (cardchat-sync --url): ', h('code', { 'data-testid': 'sync-url' }, syncUrl), ' ',
      copyButton(syncUrl, 'sync-url-copy')),
    createForm(shown, status), shown, status, list));
  return watchAccessTokens(
    uid,
    (tokens) => renderTokens(list, tokens, status),
    (err) => replaceChildren(list, h('p', { class: 'error', role: 'alert' }, `Could not load tokens: ${describeError(err)}`)),
  );
}
