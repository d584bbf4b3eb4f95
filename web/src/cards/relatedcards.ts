// A card page's "Related cards": the nearest cards the reader may read, ranked on
// the server (relatedCards) over their own cards, by the ranker chats and
// searches use. Never anyone else's cards unasked: the server's default scope.
import { relatedCards, type SearchHit } from '../data/api';
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { session } from '../data/session';

/** Related cards shown on a card's page. */
export const RELATED_SHOWN = 5;

/** The panel for card `cardId`; it fills itself once the server answers (nothing for a signed-out reader). */
export function relatedPanel(cardId: string): HTMLElement | null {
  if (!session().user) return null;
  const body = h('div', { 'data-testid': 'related-body' }, h('p', { class: 'muted', role: 'status' }, 'Finding related cards…'));
  const panel = h('section', { class: 'related-cards', 'data-testid': 'related-cards', 'aria-label': 'Related cards' },
    h('h2', null, 'Related cards'), body);
  relatedCards({ card_id: cardId, limit: RELATED_SHOWN }).then(
    (r) => {
      replaceChildren(body, r.cards.length ? h('ul', { class: 'related-list' }, r.cards.map(item))
        : h('p', { class: 'muted', 'data-testid': 'related-none' }, 'None of your other cards is close to this one.'));
      panel.dataset.loaded = 'true';
    },
    (err: unknown) => {
      replaceChildren(body, h('p', { role: 'alert', 'data-testid': 'related-error' }, `Could not find related cards: ${describeError(err)}`));
      panel.dataset.loaded = 'true';
    },
  );
  return panel;
}

function item(hit: SearchHit): HTMLElement {
  return h('li', { 'data-testid': 'related-card', 'data-card-id': hit.id },
    h('a', { href: `/card/${encodeURIComponent(hit.id)}` }, hit.title || '(untitled)'),
    hit.snippet ? h('p', { class: 'muted snippet' }, hit.snippet) : null);
}
