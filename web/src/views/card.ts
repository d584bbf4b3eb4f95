// One card, the target of a citation link.
import { h, replaceChildren } from '../dom';
import { describeError, errorCode } from '../errors';
import { renderMarkdown } from '../markdown';
import { skipNote } from '../embeddingskip';
import { getCard, getCardSkip } from '../queries';
import { cardEditPath } from '../router';
import { session } from '../session';

export function mountCard(root: HTMLElement, id: string): () => void {
  let alive = true;
  replaceChildren(root, h('p', { class: 'muted', role: 'status' }, 'Loading card…'));
  const back = h('button', { type: 'button', class: 'link', onclick: () => history.back() }, '← Back');
  getCard(id).then(
    (card) => {
      if (!alive) return;
      if (!card) {
        replaceChildren(root, unavailable(back));
        return;
      }
      const mine = Boolean(card.owner) && card.owner === session().user?.uid;
      const quota = h('div', { 'data-testid': 'card-quota' });
      replaceChildren(root, h('article', { class: 'card card-full panel', 'data-testid': 'card-page', 'data-card-id': card.id },
        back,
        h('h1', null, card.title || '(untitled)'),
        mine ? h('p', null, h('a', { href: cardEditPath(card.id), 'data-testid': 'card-page-edit' }, 'Edit this card')) : null,
        quota,
        card.tags.length ? h('p', { class: 'tags' }, card.tags.map((t) => h('span', { class: 'tag' }, t))) : null,
        h('div', { class: 'markdown', html: renderMarkdown(card.body) }),
      ));
      if (mine) void showSkip(quota, card.owner, card.id);
    },
    (err) => {
      if (!alive) return;
      replaceChildren(root, errorCode(err) === 'permission-denied'
        ? unavailable(back)
        : h('section', { class: 'panel' }, back, h('p', { role: 'alert' }, `Could not load the card: ${describeError(err)}`)));
    },
  );
  return () => {
    alive = false;
  };
}

// Only the owner's own card can be over their limit (and only they may read why).
async function showSkip(el: HTMLElement, owner: string, id: string): Promise<void> {
  try {
    const note = skipNote(await getCardSkip(owner, id));
    if (note) replaceChildren(el, h('p', { class: 'muted', role: 'status', 'data-testid': 'card-over-limit' },
      h('span', { class: 'chip' }, note.label), ' ', note.detail));
  } catch (err) {
    replaceChildren(el, h('p', { class: 'muted', role: 'status' }, `Could not check whether this card is embedded: ${describeError(err)}`));
  }
  el.dataset.checked = 'true';
}

// The rules answer a missing card and one the reader may not see alike, so
// the page says one thing for both.
function unavailable(back: HTMLElement): HTMLElement {
  return h('section', { class: 'panel', 'data-testid': 'card-unavailable' }, back,
    h('p', { role: 'alert' }, 'This card does not exist, or it is not shared with you.'));
}
