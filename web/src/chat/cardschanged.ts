// "3 cards changed since this chat started": the owner's, from chat_private
// (cards_changed), which a viewer or visitor never reads. The server packs an
// edited card's new text under its old number before the next answer
// (chat/edited_cards.py); this says how many cards that has happened to.
import { h } from '../app/dom';

const fmt = new Intl.NumberFormat('en-US');

/** The header's words for `count` cards changed ('' for none). */
export function cardsChangedText(count: number): string {
  if (!(count > 0)) return '';
  return `${fmt.format(count)} card${count === 1 ? '' : 's'} changed since this chat started`;
}

/** The header's line, or null when no card changed. */
export function cardsChanged(count: number): HTMLElement | null {
  const text = cardsChangedText(count);
  return text
    ? h('p', { class: 'meta', 'data-testid': 'cards-changed', title: 'Their new text is used from the next answer on, under the same numbers' }, text)
    : null;
}
