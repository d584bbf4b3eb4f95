// Settings, one section: the user's own API keys (bring your own key), and their own OpenAI-compatible
// endpoint (a base URL with its key). A key goes to the server once, is stored there sealed, and is never
// shown again: only its last 4 characters come back, and an endpoint's host.
import { deleteApiKey, forgetModels, listApiKeys, setApiKey, type ApiKeyInfo } from '../data/api';
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';

interface KeyProvider { id: string; name: string; hint: string; baseUrl?: boolean }

const PROVIDERS: KeyProvider[] = [
  { id: 'anthropic', name: 'Anthropic', hint: 'sk-ant-…' },
  { id: 'openai', name: 'OpenAI', hint: 'sk-…' },
  { id: 'gemini', name: 'Gemini', hint: 'AIza…' },
  // any server that speaks the OpenAI API: OpenRouter, vLLM, Ollama's /v1, LM Studio, a company's gateway
  { id: 'openai_compatible', name: 'OpenAI-compatible endpoint', hint: 'its API key (any word if it takes none)', baseUrl: true },
];

export function mountApiKeys(root: HTMLElement): () => void {
  let alive = true;
  const list = h('div', { class: 'stack', 'data-testid': 'api-keys' }, h('p', { class: 'muted' }, 'Loading…'));
  replaceChildren(root, h('section', { class: 'panel stack' },
    h('h2', null, 'Your own API keys'),
    h('p', { class: 'hint' },
      'With a key of your own, that provider’s models are yours to pick, answered on your key: they count against ',
      'your provider account, not this server’s daily limit. The key is stored encrypted on the server and is ',
      'never shown again, only its last 4 characters.'),
    list));
  const show = (keys: ApiKeyInfo[]) => {
    if (alive) replaceChildren(list, ...PROVIDERS.map((p) => providerRow(p, keys.find((k) => k.provider === p.id), show)));
  };
  listApiKeys({}).then((r) => show(r.keys), (err) => {
    if (alive) replaceChildren(list, h('p', { class: 'error', role: 'alert' }, describeError(err, 'Loading your keys')));
  });
  return () => { alive = false; };
}

function providerRow(p: KeyProvider, held: ApiKeyInfo | undefined, show: (keys: ApiKeyInfo[]) => void): HTMLElement {
  const error = h('span', { class: 'error', role: 'alert', 'data-testid': `key-error-${p.id}` });
  const input = h('input', {
    type: 'password', autocomplete: 'off', spellcheck: 'false', placeholder: p.hint,
    'aria-label': `${p.name} API key`, 'data-testid': `key-input-${p.id}`,
  });
  // the server accepts only https to a public address (and a local server under the emulators)
  const url = p.baseUrl ? h('input', {
    type: 'url', autocomplete: 'off', spellcheck: 'false', placeholder: 'https://host/v1',
    'aria-label': `${p.name} base URL`, 'data-testid': `key-url-${p.id}`,
  }) : null;
  const save = h('button', { type: 'submit', class: 'small primary', 'data-testid': `key-save-${p.id}` }, held ? 'Replace' : 'Save');
  const form = h('form', { class: 'key-form' }, url, input, save);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    save.disabled = true;
    error.textContent = '';
    try {
      await setApiKey(url ? { provider: p.id, key: input.value, base_url: url.value } : { provider: p.id, key: input.value });
      input.value = ''; // the key leaves the page as soon as the server has it
      forgetModels();
      show((await listApiKeys({})).keys);
    } catch (err) {
      error.textContent = describeError(err, 'Saving the key');
      save.disabled = false;
    }
  });
  const remove = h('button', { type: 'button', class: 'small danger', 'data-testid': `key-delete-${p.id}` }, 'Delete');
  remove.addEventListener('click', async () => {
    remove.disabled = true;
    try {
      const { keys } = await deleteApiKey({ provider: p.id });
      forgetModels();
      show(keys);
    } catch (err) {
      error.textContent = describeError(err, 'Deleting the key');
      remove.disabled = false;
    }
  });
  return h('div', { class: 'key-row', 'data-testid': `key-row-${p.id}` },
    h('strong', null, p.name), ' ',
    held
      ? h('span', { class: 'muted', 'data-testid': `key-held-${p.id}` },
        `key ending in ${held.last4}${held.host ? ` at ${held.host}` : ''}`)
      : h('span', { class: 'muted' }, 'no key'),
    form, held ? remove : null, error);
}
