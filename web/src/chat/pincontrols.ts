// The owner's pin and exclude controls (pinCard / excludeCard on the server: chat/pins.py). A pinned
// card is always in the chat's hidden background, an excluded one never again; either takes effect
// on the next answer. What is pinned comes from chat_private, which the rules give to the chat's
// owner alone: a viewer or visitor never gets these controls, nor learns what they say.
import { excludeCard, pinCard } from '../data/api';
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import type { ChatPrivateDoc } from '../data/shapes';

export interface CardChoice { pinned: boolean; excluded: boolean }

/** What a card's two buttons say, and what a click on each asks the server for. */
export function choiceButtons(c: CardChoice): { pin: string; exclude: string; hint: string } {
  return {
    pin: c.pinned ? 'Unpin' : 'Pin',
    exclude: c.excluded ? 'Include again' : 'Exclude',
    hint: c.pinned ? 'pinned: always in the background' : c.excluded ? 'excluded: never in the background' : '',
  };
}

/** The owner's pins and exclusions of one chat, kept current from its chat_private; every control follows. */
export class PinState {
  private choices = new Map<string, CardChoice>();
  private key = '';
  private readonly views = new Set<() => void>();
  /** Whether the "why" panel was left open: the header renders it afresh on every change. */
  whyOpen = false;

  constructor(readonly chatId: string) {}

  update(p: ChatPrivateDoc | null): void {
    const key = JSON.stringify([p?.pinned_cards ?? [], p?.excluded_cards ?? []]);
    if (key === this.key) return;
    this.key = key;
    this.choices = new Map();
    for (const c of p?.pinned_cards ?? []) this.choices.set(c, { pinned: true, excluded: false });
    for (const c of p?.excluded_cards ?? []) this.choices.set(c, { pinned: false, excluded: true });
    this.refresh();
  }

  choice(cardId: string): CardChoice {
    return this.choices.get(cardId) ?? { pinned: false, excluded: false };
  }

  /** A card's Pin and Exclude buttons, with what the last click answered. */
  controls(cardId: string): HTMLElement {
    const el = h('span', { class: 'pin-controls', 'data-testid': 'pin-controls', 'data-card-id': cardId });
    const error = h('span', { class: 'error', role: 'alert', 'data-testid': 'pin-error' });
    let busy = false;
    const render = () => {
      const c = this.choice(cardId);
      const labels = choiceButtons(c);
      const ask = async (call: () => Promise<CardChoice>) => {
        busy = true;
        error.textContent = '';
        render();
        try {
          this.choices.set(cardId, await call());
        } catch (err) {
          error.textContent = describeError(err, 'Changing the background');
        }
        busy = false;
        this.refresh();
      };
      const pin = h('button', { type: 'button', class: 'small', 'data-testid': 'pin-card', 'aria-pressed': String(c.pinned), disabled: busy,
        onclick: () => ask(() => pinCard({ chat_id: this.chatId, card_id: cardId, pinned: !c.pinned })) }, labels.pin);
      const exclude = h('button', { type: 'button', class: 'small', 'data-testid': 'exclude-card', 'aria-pressed': String(c.excluded), disabled: busy,
        onclick: () => ask(() => excludeCard({ chat_id: this.chatId, card_id: cardId, excluded: !c.excluded })) }, labels.exclude);
      el.dataset.pinned = String(c.pinned);
      el.dataset.excluded = String(c.excluded);
      replaceChildren(el, ' ', pin, ' ', exclude, labels.hint ? h('span', { class: 'hint', 'data-testid': 'pin-hint' }, ` ${labels.hint}`) : null, ' ', error);
    };
    render();
    this.views.add(() => { if (el.isConnected) render(); });
    return el;
  }

  private refresh(): void {
    for (const view of this.views) view();
  }
}

/** The "why" panel's row of pinned and excluded cards, each with its undo; null when there are none. */
export function pinnedRow(p: ChatPrivateDoc, pins: PinState, href: (cardId: string) => string): HTMLElement | null {
  const label = (c: string) => {
    const n = p.card_ids.indexOf(c) + 1;
    return n > 0 ? `[${n}]` : 'a card';
  };
  const row = (title: string, ids: string[], testId: string) => ids.length
    ? h('p', { 'data-testid': testId }, `${title}: `, ids.flatMap((c) => [h('a', { href: href(c) }, label(c)), pins.controls(c), ' ']))
    : null;
  const pinned = row('Pinned', p.pinned_cards, 'context-pinned');
  const excluded = row('Excluded', p.excluded_cards, 'context-excluded');
  return pinned || excluded ? h('div', { class: 'context-pins' }, pinned, excluded) : null;
}
