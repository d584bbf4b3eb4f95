// The "start a chat" dialog: first message, model, background share.
import { createChat, listModels, type ModelList } from '../api';
import { budgetTokens, clampPercent, DEFAULT_PERCENT, describeBudget, MAX_PERCENT, MIN_PERCENT, modelOptionLabel } from '../budget';
import { h } from '../dom';
import { describeError } from '../errors';
import { chatPath, router } from '../router';

export interface StartChatRequest {
  cardIds: string[];
  description: string;
  configuration: Record<string, unknown>;
}

/** Set while navigating to a chat that createChat just made, so its view says "Preparing". */
export const justCreated = new Set<string>();

export function openStartChat(req: StartChatRequest): void {
  let models: ModelList | null = null;
  const message = h('textarea', {
    id: 'start-message', rows: 4, required: true, 'data-testid': 'start-message',
    placeholder: 'What do you want to know from these cards?',
  });
  const model = h('select', { id: 'start-model', 'data-testid': 'model-picker', disabled: true },
    h('option', null, 'Loading models…'));
  const slider = h('input', {
    id: 'start-background', type: 'range', min: MIN_PERCENT, max: MAX_PERCENT, step: 5,
    value: String(DEFAULT_PERCENT), 'data-testid': 'background-slider',
  });
  const sliderLabel = h('span');
  const budget = h('output', { for: 'start-background', 'data-testid': 'budget', class: 'hint' });
  const offlineNote = h('p', { class: 'hint', hidden: true, 'data-testid': 'offline-note' },
    'The offline answerer uses no AI model: it quotes the passages of your cards that best match your question.');
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'start-error' });
  const submit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'start-submit', disabled: true }, 'Start chat');
  const cancel = h('button', { type: 'button', 'data-testid': 'start-cancel' }, 'Cancel');
  const status = h('p', { class: 'preparing', hidden: true, role: 'status', 'data-testid': 'start-preparing' },
    h('span', { class: 'spinner', 'aria-hidden': 'true' }), ' Preparing your chat… ranking your cards and packing the background.');

  const picked = () => models?.models.find((m) => m.id === model.value) ?? null;
  const refreshBudget = () => {
    const pct = clampPercent(Number(slider.value));
    sliderLabel.textContent = `${pct} %`;
    const m = picked();
    budget.textContent = m ? describeBudget(pct, m) : '';
    budget.dataset.tokens = m ? String(budgetTokens(pct, m.context_window)) : '';
    offlineNote.hidden = !m?.offline;
  };
  slider.addEventListener('input', refreshBudget);
  model.addEventListener('change', refreshBudget);

  const form = h('form', { method: 'dialog', class: 'stack' },
    h('h2', null, `Chat with ${req.cardIds.length} card${req.cardIds.length === 1 ? '' : 's'}`),
    h('p', { class: 'hint' }, req.description),
    h('label', { for: 'start-message' }, 'Your first message'),
    message,
    h('label', { for: 'start-model' }, 'Model'),
    model,
    offlineNote,
    h('label', { for: 'start-background' }, 'Share of the context window for your cards: ', sliderLabel),
    slider,
    budget,
    error,
    status,
    h('div', { class: 'actions' }, cancel, submit),
  );
  const dialog = h('dialog', { class: 'dialog', 'data-testid': 'start-chat-dialog', 'aria-labelledby': 'start-title' }, form);
  form.querySelector('h2')!.id = 'start-title';
  document.body.appendChild(dialog);

  let busy = false;
  const setBusy = (b: boolean) => {
    busy = b;
    for (const el of [message, model, slider, submit, cancel]) el.disabled = b || (el === model && !models);
    submit.disabled = b || !models;
    status.hidden = !b;
  };
  cancel.addEventListener('click', () => dialog.close());
  dialog.addEventListener('cancel', (e) => busy && e.preventDefault());
  dialog.addEventListener('close', () => dialog.remove());
  message.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) form.requestSubmit();
  });

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = message.value.trim();
    if (!text) {
      error.textContent = 'Write a first message.';
      message.focus();
      return;
    }
    error.textContent = '';
    setBusy(true);
    try {
      const { chat_id } = await createChat({
        card_ids: req.cardIds,
        initial_message: text,
        model: model.value,
        background_percentage: clampPercent(Number(slider.value)) / 100,
        collection: { description: req.description, configuration: req.configuration },
      });
      justCreated.add(chat_id);
      // Navigate first, close second: the chat view replaces the cards view
      // before the dialog disappears, so nothing in between flashes.
      router.navigate(chatPath(chat_id));
      busy = false;
      dialog.close();
    } catch (err) {
      setBusy(false);
      error.textContent = describeError(err, 'Starting a chat');
    }
  });

  dialog.showModal();
  message.focus();

  listModels().then(
    (list) => {
      models = list;
      model.textContent = '';
      for (const m of list.models) {
        model.appendChild(h('option', { value: m.id, 'data-offline': m.offline ? 'true' : 'false' }, modelOptionLabel(m)));
      }
      model.value = list.default;
      model.disabled = busy;
      submit.disabled = busy;
      refreshBudget();
    },
    (err) => {
      model.textContent = '';
      model.appendChild(h('option', null, 'No models'));
      error.textContent = `Could not load the models: ${describeError(err)}`;
    },
  );
}
