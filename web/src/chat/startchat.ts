// The "start a chat" dialog: first message, model, background share.
import { createChat, listModels, type CollectionQuery, type ModelList } from '../data/api';
import { takeStart } from './coverage';
import { budgetTokens, clampPercent, DEFAULT_PERCENT, describeBudget, MAX_PERCENT, MIN_PERCENT, modelOptionLabel } from './budget';
import { h } from '../app/dom';
import { describeError } from '../app/errors';
import { chatPath, router } from '../app/router';

export interface StartChatRequest {
  cardIds: string[];
  /** The whole filtered collection, resolved by the server (sent instead of cardIds), and how many cards it holds. */
  query?: CollectionQuery | null;
  count?: number;
  description: string;
  configuration: Record<string, unknown>;
  /** A saved collection (sent instead of ids or a query), and the dialog's heading for it. */
  collectionId?: string;
  heading?: string;
  /** Cards always in the background (a chat about one card: cards/chatabout.ts). */
  pinnedCardIds?: string[];
}

/** Set while navigating to a chat that createChat just made, so its view says "Preparing". */
export const justCreated = new Set<string>();

export function openStartChat(req: StartChatRequest): void {
  new StartChatDialog(req).open();
}

class StartChatDialog {
  private models: ModelList | null = null;
  private busy = false;
  private readonly message = h('textarea', {
    id: 'start-message', rows: 4, required: true, 'data-testid': 'start-message',
    placeholder: 'What do you want to know from these cards?',
  });
  private readonly model = h('select', { id: 'start-model', 'data-testid': 'model-picker', disabled: true },
    h('option', null, 'Loading models…'));
  private readonly slider = h('input', {
    id: 'start-background', type: 'range', min: MIN_PERCENT, max: MAX_PERCENT, step: 5,
    value: String(DEFAULT_PERCENT), 'data-testid': 'background-slider',
  });
  private readonly sliderLabel = h('span');
  private readonly budget = h('output', { for: 'start-background', 'data-testid': 'budget', class: 'hint' });
  private readonly offlineNote = h('p', { class: 'hint', hidden: true, 'data-testid': 'offline-note' },
    'The offline answerer uses no AI model: it quotes the passages of your cards that best match your question.');
  private readonly lookFurther = h('input', { type: 'checkbox', id: 'start-look-further', 'data-testid': 'start-look-further' });
  // Off by default: each search is another call to the model, and the answer starts later. The
  // offline answerer never searches, so it is not offered there.
  private readonly lookFurtherRow = h('label', { class: 'switch', for: 'start-look-further' }, this.lookFurther,
    h('span', null, 'Look further: the model may search these cards while it answers (each search costs another call)'));
  private readonly error = h('p', { class: 'error', role: 'alert', 'data-testid': 'start-error' });
  private readonly submit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'start-submit', disabled: true }, 'Start chat');
  private readonly cancel = h('button', { type: 'button', 'data-testid': 'start-cancel' }, 'Cancel');
  private readonly status = h('p', { class: 'preparing', hidden: true, role: 'status', 'data-testid': 'start-preparing' },
    h('span', { class: 'spinner', 'aria-hidden': 'true' }), ' Preparing your chat… ranking your cards and packing the background.');
  private readonly form: HTMLFormElement;
  private readonly dialog: HTMLDialogElement;

  constructor(private readonly req: StartChatRequest) {
    const n = req.query ? req.count ?? 0 : req.cardIds.length;
    this.form = h('form', { method: 'dialog', class: 'stack' },
      h('h2', { id: 'start-title' }, req.heading ?? `Chat with ${n} card${n === 1 ? '' : 's'}`),
      h('p', { class: 'hint' }, req.description),
      h('label', { for: 'start-message' }, 'Your first message'),
      this.message,
      h('label', { for: 'start-model' }, 'Model'),
      this.model,
      this.offlineNote,
      h('label', { for: 'start-background' }, 'Share of the context window for your cards: ', this.sliderLabel),
      this.slider,
      this.budget,
      this.lookFurtherRow,
      this.error,
      this.status,
      h('div', { class: 'actions' }, this.cancel, this.submit),
    );
    this.dialog = h('dialog', { class: 'dialog', 'data-testid': 'start-chat-dialog', 'aria-labelledby': 'start-title' }, this.form);
  }

  open(): void {
    const pending = takeStart(); // a coverage notice's "widen" or "raise" brought the reader here
    if (pending) {
      this.message.value = pending.question;
      if (pending.percent !== null) this.slider.value = String(clampPercent(pending.percent));
    }
    document.body.appendChild(this.dialog);
    this.wire();
    this.dialog.showModal();
    this.message.focus();
    listModels().then((list) => this.showModels(list), (err) => {
      this.model.textContent = '';
      this.model.appendChild(h('option', null, 'No models'));
      this.error.textContent = `Could not load the models: ${describeError(err)}`;
    });
  }

  private wire(): void {
    const { dialog } = this;
    this.slider.addEventListener('input', () => this.refreshBudget());
    this.model.addEventListener('change', () => this.refreshBudget());
    this.cancel.addEventListener('click', () => dialog.close());
    dialog.addEventListener('cancel', (e) => this.busy && e.preventDefault());
    dialog.addEventListener('close', () => dialog.remove());
    this.message.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) this.form.requestSubmit();
    });
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.start();
    });
  }

  private showModels(list: ModelList): void {
    this.models = list;
    this.model.textContent = '';
    for (const m of list.models) {
      this.model.appendChild(h('option', { value: m.id, 'data-offline': m.offline ? 'true' : 'false' }, modelOptionLabel(m)));
    }
    this.model.value = list.default;
    this.model.disabled = this.busy;
    this.submit.disabled = this.busy;
    this.refreshBudget();
  }

  private refreshBudget(): void {
    const pct = clampPercent(Number(this.slider.value));
    this.sliderLabel.textContent = `${pct} %`;
    const m = this.models?.models.find((x) => x.id === this.model.value) ?? null;
    this.budget.textContent = m ? describeBudget(pct, m) : '';
    this.budget.dataset.tokens = m ? String(budgetTokens(pct, m.context_window)) : '';
    this.offlineNote.hidden = !m?.offline;
    this.lookFurtherRow.hidden = !m || m.offline;
  }

  private setBusy(b: boolean): void {
    this.busy = b;
    for (const el of [this.message, this.model, this.slider, this.lookFurther, this.submit, this.cancel]) {
      el.disabled = b || (el === this.model && !this.models);
    }
    this.submit.disabled = b || !this.models;
    this.status.hidden = !b;
  }

  private async start(): Promise<void> {
    const text = this.message.value.trim();
    if (!text) {
      this.error.textContent = 'Write a first message.';
      this.message.focus();
      return;
    }
    this.error.textContent = '';
    this.setBusy(true);
    try {
      const { chat_id } = await createChat({
        ...(this.req.collectionId ? { collection_id: this.req.collectionId }
          : this.req.query ? { query: this.req.query } : { card_ids: this.req.cardIds }),
        initial_message: text,
        model: this.model.value,
        background_percentage: clampPercent(Number(this.slider.value)) / 100,
        collection: { description: this.req.description, configuration: this.req.configuration },
        ...(this.req.pinnedCardIds?.length ? { pinned_card_ids: this.req.pinnedCardIds } : {}),
        ...(this.lookFurther.checked && !this.lookFurtherRow.hidden ? { look_further: true } : {}),
      });
      justCreated.add(chat_id);
      // Navigate first, close second: the chat view replaces the cards view
      // before the dialog disappears, so nothing in between flashes.
      router.navigate(chatPath(chat_id));
      this.busy = false;
      this.dialog.close();
    } catch (err) {
      this.setBusy(false);
      this.error.textContent = describeError(err, 'Starting a chat');
    }
  }
}
