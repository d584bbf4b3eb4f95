// Review cards (/review): the pairs of a collection that say the same thing or may disagree
// (findOverlaps, over a saved collection or the Cards page's filter), each with its actions: open
// both side by side, merge them into one (the editor, prefilled with both), mark one outdated (its
// owner only: the tag leaves it out of default chats, searches and MCP results).
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { cardPath, collectionPath, router, type Route } from '../app/router';
import { findOverlaps, type OverlapPair } from '../data/api';
import { getCard } from '../data/cardbyid';
import { updateCard } from '../data/cardwrites';
import type { CardDoc } from '../data/shapes';
import { offerDraft } from './carddraft';
import { queryCardsPath } from './collections';
import { isOutdated, kindLabel, mergedDraft, outdatedFields } from './overlaps';

type ReviewRoute = Extract<Route, { name: 'review' }>;

export function mountReview(root: HTMLElement, route: ReviewRoute, uid: string): () => void {
  let alive = true;
  const body = h('div', { 'data-testid': 'review-body' }, h('p', { class: 'muted', role: 'status' }, 'Looking for overlapping cards…'));
  const back = route.collection ? collectionPath(route.collection) : queryCardsPath(route.query) ?? '/';
  replaceChildren(root, h('section', { class: 'panel review', 'data-testid': 'review' },
    h('p', null, h('a', { href: back, 'data-testid': 'review-back' }, route.collection ? 'Back to the collection' : 'Back to the cards')),
    h('h1', null, 'Review cards'),
    h('p', { class: 'hint' }, 'Pairs of cards that say the same thing, or may say different things on one subject.'),
    body));
  document.title = 'Review cards · Cardchat';
  const request = route.collection ? { collection_id: route.collection } : { query: route.query };
  findOverlaps(request).then(
    async ({ pairs }) => {
      const cards = await readCards(pairs);
      if (alive) showPairs(body, pairs, cards, uid);
    },
    (err: unknown) => alive && replaceChildren(body,
      h('p', { class: 'error', role: 'alert', 'data-testid': 'review-error' }, `Could not review these cards: ${describeError(err)}`)),
  ).finally(() => { body.dataset.loaded = 'true'; });
  return () => { alive = false; };
}

async function readCards(pairs: OverlapPair[]): Promise<Map<string, CardDoc>> {
  const ids = [...new Set(pairs.flatMap((p) => [p.a, p.b]))];
  const docs = await Promise.all(ids.map((id) => getCard(id).catch(() => null)));
  return new Map(docs.filter((d): d is CardDoc => d !== null).map((d) => [d.id, d]));
}

function showPairs(body: HTMLElement, pairs: OverlapPair[], cards: Map<string, CardDoc>, uid: string): void {
  const shown = pairs.filter((p) => cards.has(p.a) && cards.has(p.b));
  replaceChildren(body, shown.length
    ? [h('p', { class: 'meta', role: 'status', 'data-testid': 'review-count' }, `${shown.length} pair${shown.length === 1 ? '' : 's'} to review`),
      h('ol', { class: 'overlap-list' }, shown.map((p) => pairItem(p, cards.get(p.a) as CardDoc, cards.get(p.b) as CardDoc, uid)))]
    : h('p', { 'data-testid': 'review-none' }, 'No near-duplicates or possible conflicts among these cards.'));
}

function pairItem(pair: OverlapPair, a: CardDoc, b: CardDoc, uid: string): HTMLElement {
  const both = h('div', { class: 'overlap-both', 'data-testid': 'overlap-both', hidden: true }, [a, b].map(cardText));
  const status = h('p', { class: 'meta', role: 'status', 'data-testid': 'overlap-status' });
  const open = h('button', { type: 'button', 'aria-expanded': 'false', 'data-testid': 'overlap-open' }, 'Open both');
  open.addEventListener('click', () => {
    both.hidden = !both.hidden;
    open.setAttribute('aria-expanded', String(!both.hidden));
  });
  const merge = h('button', { type: 'button', 'data-testid': 'overlap-merge', onclick: () => {
    offerDraft({ fields: mergedDraft(a, b), derivedFrom: null });
    router.navigate('/new');
  } }, 'Merge into one');
  const marks = [a, b].filter((c) => c.owner === uid && !isOutdated(c)).map((c) => markButton(c, status));
  return h('li', { class: 'overlap-pair', 'data-testid': 'overlap-pair', 'data-kind': pair.kind, 'data-a': pair.a, 'data-b': pair.b },
    h('p', null, h('strong', { class: `overlap-kind ${pair.kind}` }, kindLabel(pair.kind)), ' · ',
      h('span', { 'data-testid': 'overlap-reason' }, pair.reason)),
    h('ul', { class: 'overlap-cards' }, [a, b].map((c) => h('li', null,
      h('a', { href: cardPath(c.id), 'data-testid': 'overlap-card' }, c.title || '(untitled)'),
      isOutdated(c) ? h('span', { class: 'muted' }, ' (outdated)') : null))),
    h('p', { class: 'actions' }, open, merge, marks), status, both);
}

function cardText(c: CardDoc): HTMLElement {
  return h('article', { class: 'overlap-text', 'aria-label': c.title || '(untitled)' },
    h('h2', null, h('a', { href: cardPath(c.id) }, c.title || '(untitled)')), h('p', { class: 'prewrap' }, c.body));
}

function markButton(card: CardDoc, status: HTMLElement): HTMLElement {
  const button = h('button', { type: 'button', 'data-testid': 'overlap-outdated', 'data-card-id': card.id },
    `Mark “${card.title || '(untitled)'}” outdated`);
  button.addEventListener('click', () => {
    button.disabled = true;
    updateCard(card.id, outdatedFields(card)).then(
      () => { status.textContent = `“${card.title || '(untitled)'}” is marked outdated: chats and searches leave it out unless you name it.`; button.remove(); },
      (err: unknown) => { status.textContent = `Could not mark it outdated: ${describeError(err)}`; button.disabled = false; },
    );
  });
  return button;
}
