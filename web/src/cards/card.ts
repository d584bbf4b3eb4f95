// One card, the target of a citation link. Someone else's public card leads
// to its owner's deck, and offers to follow it as a source of cards.
import { readCardSources, updateCardSources } from '../data/cardqueries';
import { follow, isFollowed, ownerLabel, sourceLabel } from './cardsources';
import { h, replaceChildren } from '../app/dom';
import { describeError, errorCode } from '../app/errors';
import { renderMarkdown } from '../app/markdown';
import { skipNote } from './embeddingskip';
import { chatAboutButton } from './chatabout';
import { relatedPanel } from './relatedcards';
import { getCard, getCardSkip, getCardSync } from '../data/cardbyid';
import { cardEditPath, deckPath, router } from '../app/router';
import { session } from '../data/session';
import type { CardDoc } from '../data/shapes';

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
      const synced = h('div', { 'data-testid': 'card-synced' });
      replaceChildren(root, h('article', { class: 'card card-full panel', 'data-testid': 'card-page', 'data-card-id': card.id },
        back,
        h('h1', null, card.title || '(untitled)'),
        mine ? h('p', null, h('a', { href: cardEditPath(card.id), 'data-testid': 'card-page-edit' }, 'Edit this card')) : null,
        ownerDeck(card),
        chatAboutButton(card),
        quota,
        synced,
        card.tags.length ? h('p', { class: 'tags' }, card.tags.map((t) => h('span', { class: 'tag' }, t))) : null,
        h('div', { class: 'markdown', html: renderMarkdown(card.body) }),
        relatedPanel(card.id),
      ));
      if (mine) void showSkip(quota, card.owner, card.id);
      if (mine) void showSynced(synced, card.id);
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

/** For another owner's public card: a link to all their public cards, and "Follow" to keep them as a source. */
function ownerDeck(card: CardDoc): HTMLElement | null {
  const uid = session().user?.uid;
  if (!uid || card.visibility !== 'public' || !card.owner || card.owner === uid) return null;
  const src = { owner: card.owner };
  const error = h('span', { class: 'error', role: 'alert', 'data-testid': 'follow-error' });
  const button = h('button', { type: 'button', 'data-testid': 'follow-owner' }, `Follow ${sourceLabel(src)}`);
  // Already followed: say so (a failed read leaves the button, which follows at most once).
  void readCardSources(uid).then((s) => {
    if (!isFollowed(s, src)) return;
    button.disabled = true;
    button.textContent = `You follow ${sourceLabel(src)}`;
  }, () => {});
  button.addEventListener('click', () => {
    button.disabled = true;
    error.textContent = '';
    updateCardSources(uid, (s) => follow(s, src)).then(() => router.navigate(deckPath(card.owner)), (e: unknown) => {
      button.disabled = false;
      error.textContent = e instanceof Error && !('code' in e) ? e.message : `Could not follow: ${describeError(e)}`;
    });
  });
  return h('p', { class: 'owner-deck' }, `A public card of ${ownerLabel(card.owner)}’s. `,
    h('a', { href: deckPath(card.owner), 'data-testid': 'owner-deck' }, `See ${sourceLabel(src)}`), ' ', button, error);
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

// Only the owner reads where their card came from: their folder's name and paths are theirs alone.
async function showSynced(el: HTMLElement, id: string): Promise<void> {
  try {
    const from = await getCardSync(id);
    if (from) replaceChildren(el, h('p', { class: 'muted', 'data-testid': 'card-synced-from' }, `synced from ${from}`));
  } catch {
    // Where it came from is a note beside the card: the card shows without it.
  }
}

// The rules answer a missing card and one the reader may not see alike, so
// the page says one thing for both.
function unavailable(back: HTMLElement): HTMLElement {
  return h('section', { class: 'panel', 'data-testid': 'card-unavailable' }, back,
    h('p', { role: 'alert' }, 'This card does not exist, or it is not shared with you.'));
}
