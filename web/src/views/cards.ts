// The cards view: the user's visible cards, live, filtered, selectable.
import { describeCollection, filterCards, mergeCards, parseIdList, tagCounts, type CardDoc, type CardFilter } from '../cardfilter';
import { h, replaceChildren } from '../dom';
import { describeError } from '../errors';
import { renderMarkdown } from '../markdown';
import type { Route } from '../router';
import type { Session } from '../session';
import { getChatPrivate, watchCards } from '../store';
import { openStartChat } from './startchat';

type CardsRoute = Extract<Route, { name: 'cards' }>;

export function mountCards(root: HTMLElement, route: CardsRoute, s: Session): () => void {
  const uid = s.user!.uid;
  let cards: CardDoc[] | null = null;
  const filter: CardFilter = { tag: route.tag, text: route.q, ids: parseIdList(route.cards) };
  const selected = new Set<string>();
  const rendered = new Map<string, { key: number; el: HTMLElement; box: HTMLInputElement }>();
  let shown: CardDoc[] = [];

  const search = h('input', { id: 'card-search', type: 'search', value: route.q, 'data-testid': 'card-search', placeholder: 'Words in title or text' });
  const tagSelect = h('select', { id: 'card-tag', 'data-testid': 'card-tag' });
  const count = h('span', { 'data-testid': 'card-count', role: 'status' }, 'Loading cards…');
  const chatButton = h('button', { type: 'button', class: 'primary', 'data-testid': 'chat-with-cards', disabled: true });
  const selectAll = h('button', { type: 'button', 'data-testid': 'select-all' }, 'Select all shown');
  const clear = h('button', { type: 'button', 'data-testid': 'clear-selection' }, 'Clear selection');
  const list = h('div', { class: 'card-list', 'data-testid': 'card-list' }, h('p', { class: 'muted' }, 'Loading cards…'));
  const banner = h('div', { class: 'banner', hidden: true, 'data-testid': 'id-filter-banner' });
  const aiNote = s.mayUseAi ? null : h('p', { class: 'hint' }, 'Your account is not enabled for AI chat; ask an admin.');

  replaceChildren(root, h('section', { class: 'cards-view' },
    h('div', { class: 'toolbar' },
      h('div', { class: 'field' }, h('label', { for: 'card-search' }, 'Filter'), search),
      h('div', { class: 'field' }, h('label', { for: 'card-tag' }, 'Tag'), tagSelect),
    ),
    banner,
    list,
    h('div', { class: 'action-bar' }, count, h('span', { class: 'spacer' }), selectAll, clear, chatButton),
    aiNote,
  ));

  const pendingBodies = new WeakMap<Element, string>();
  const lazy = new IntersectionObserver((entries) => {
    for (const e of entries) {
      const md = e.isIntersecting ? pendingBodies.get(e.target) : undefined;
      if (md === undefined) continue;
      e.target.innerHTML = renderMarkdown(md);
      pendingBodies.delete(e.target);
      lazy.unobserve(e.target);
    }
  }, { rootMargin: '800px 0px' });

  const chosen = (): string[] => {
    const sel = shown.filter((c) => selected.has(c.id));
    return (sel.length ? sel : shown).map((c) => c.id);
  };

  function syncUrl(): void {
    const p = new URLSearchParams();
    if (filter.tag) p.set('tag', filter.tag);
    if (filter.text) p.set('q', filter.text);
    if (route.cards) p.set('cards', route.cards);
    if (route.chat) p.set('chat', route.chat);
    const qs = p.toString();
    history.replaceState(null, '', qs ? `/?${qs}` : '/');
  }

  function renderTags(): void {
    if (!cards) return;
    const current = filter.tag ?? '';
    replaceChildren(tagSelect, h('option', { value: '' }, 'All tags'),
      tagCounts(cards).map(([t, n]) => h('option', { value: t }, `${t} (${n})`)));
    tagSelect.value = current;
  }

  function cardElement(c: CardDoc) {
    const cached = rendered.get(c.id);
    if (cached && cached.key === c.updated) return cached;
    const box = h('input', { type: 'checkbox', id: `sel-${c.id}`, 'data-testid': 'card-select' });
    box.checked = selected.has(c.id);
    box.addEventListener('change', () => {
      if (box.checked) selected.add(c.id);
      else selected.delete(c.id);
      renderActions();
    });
    // Markdown is rendered when the card nears the viewport: a deck holds
    // a thousand cards and most are never scrolled to.
    const body = h('div', { class: 'card-body markdown' }, h('p', null, c.body.slice(0, 400)));
    pendingBodies.set(body, c.body);
    lazy.observe(body);
    const more = h('button', { type: 'button', class: 'link', 'aria-expanded': 'false' }, 'Show more');
    more.addEventListener('click', () => {
      const open = body.classList.toggle('expanded');
      more.textContent = open ? 'Show less' : 'Show more';
      more.setAttribute('aria-expanded', String(open));
    });
    const el = h('article', { class: 'card', 'data-testid': 'card', 'data-card-id': c.id },
      h('header', null,
        box,
        h('label', { for: `sel-${c.id}`, class: 'card-title' }, c.title || '(untitled)'),
        c.visibility === 'private' ? h('span', { class: 'chip' }, 'private') : null,
        h('a', { href: `/card/${encodeURIComponent(c.id)}`, class: 'open', 'aria-label': `Open ${c.title}` }, 'Open'),
      ),
      c.tags.length ? h('p', { class: 'tags' }, c.tags.map((t) => h('span', { class: 'tag' }, t))) : null,
      body,
      more,
    );
    const entry = { key: c.updated, el, box };
    rendered.set(c.id, entry);
    return entry;
  }

  function renderActions(): void {
    if (!cards) return;
    const selCount = shown.filter((c) => selected.has(c.id)).length;
    count.textContent = `${shown.length} card${shown.length === 1 ? '' : 's'} shown` + (selCount ? ` · ${selCount} selected` : '');
    const n = chosen().length;
    chatButton.textContent = `Chat with ${selCount ? 'these' : 'all'} ${n} card${n === 1 ? '' : 's'}`;
    chatButton.disabled = n === 0 || !s.mayUseAi;
    clear.disabled = selected.size === 0;
  }

  function renderList(): void {
    if (!cards) return;
    shown = filterCards(cards, filter);
    banner.hidden = !filter.ids;
    if (filter.ids) {
      replaceChildren(banner, `Showing exactly ${filter.ids.length} cards (${shown.length} visible to you). `,
        h('a', { href: '/', 'data-testid': 'show-all-cards' }, 'Show all cards'));
    }
    replaceChildren(list, shown.length
      ? shown.map((c) => cardElement(c).el)
      : h('p', { class: 'muted', 'data-testid': 'no-cards' }, cards.length ? 'No card matches this filter.' : 'You have no cards yet.'));
    renderActions();
  }

  let debounce: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener('input', () => {
    // The URL follows every keystroke, so a remount (sign-in, profile load) keeps the filter.
    filter.text = search.value.trim();
    syncUrl();
    clearTimeout(debounce);
    debounce = setTimeout(renderList, 150);
  });
  tagSelect.addEventListener('change', () => {
    filter.tag = tagSelect.value || null;
    syncUrl();
    renderList();
  });
  selectAll.addEventListener('click', () => {
    for (const c of shown) selected.add(c.id);
    for (const c of shown) rendered.get(c.id)!.box.checked = true;
    renderActions();
  });
  clear.addEventListener('click', () => {
    selected.clear();
    rendered.forEach((r) => (r.box.checked = false));
    renderActions();
  });
  chatButton.addEventListener('click', () => {
    const selCount = shown.filter((c) => selected.has(c.id)).length;
    openStartChat({
      cardIds: chosen(),
      description: describeCollection(filter, selCount || null),
      configuration: { tag: filter.tag, text: filter.text, selected: selCount > 0, from_chat: route.chat },
    });
  });

  let alive = true;
  if (route.chat) {
    getChatPrivate(route.chat).then(
      (priv) => {
        if (!alive) return;
        filter.ids = priv?.card_ids.filter(Boolean) ?? [];
        renderList();
      },
      (err) => {
        filter.ids = [];
        replaceChildren(banner, `Could not read that chat’s cards: ${describeError(err)}`);
      },
    );
  }

  const unsubscribe = watchCards(
    uid,
    (lists) => {
      cards = mergeCards(...lists);
      renderTags();
      if (!route.chat || filter.ids) renderList();
    },
    (err) => replaceChildren(list, h('p', { class: 'error', role: 'alert' }, `Could not load cards: ${describeError(err)}`)),
  );
  search.focus();
  return () => {
    alive = false;
    lazy.disconnect();
    clearTimeout(debounce);
    unsubscribe();
  };
}
