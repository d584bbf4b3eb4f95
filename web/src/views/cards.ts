// The cards view: the user's visible cards, live, filtered, selectable.
import {
  CARD_SCOPES, describeCollection, filterCards, mergeCards, parseIdList, tagCounts, type CardDoc, type CardFilter, type CardScope,
} from '../cardfilter';
import { h, replaceChildren } from '../dom';
import { describeError } from '../errors';
import type { Route } from '../router';
import type { Session } from '../session';
import { getChatPrivate, watchCards } from '../queries';
import { CardList } from './cardlist';
import { EmbeddingStatus } from './embeddingstatus';
import { filterQuery } from '../collectionquery';
import { CardSearch, describeSearch, type SearchState } from './cardsearch';
import { exportButtons } from './exportmenu';
import { openStartChat } from './startchat';

type CardsRoute = Extract<Route, { name: 'cards' }>;

export function mountCards(root: HTMLElement, route: CardsRoute, s: Session): () => void {
  const view = new CardsView(root, route, s);
  return () => view.dispose();
}

class CardsView {
  private cards: CardDoc[] | null = null;
  private shown: CardDoc[] = [];
  private readonly filter: CardFilter;
  private readonly list: CardList;
  private readonly embedding: EmbeddingStatus;
  private readonly search: HTMLInputElement;
  private readonly tagSelect = h('select', { id: 'card-tag', 'data-testid': 'card-tag' });
  private readonly scopeSelect = h('select', { id: 'card-scope', 'data-testid': 'card-scope-filter' },
    h('option', { value: '' }, 'Everyone’s'),
    CARD_SCOPES.map((sc) => h('option', { value: sc }, { yours: 'Yours', shared: 'Shared with you', public: 'Public' }[sc])));
  private readonly count = h('span', { 'data-testid': 'card-count', role: 'status' }, 'Loading cards…');
  private readonly chatButton = h('button', { type: 'button', class: 'primary', 'data-testid': 'chat-with-cards', disabled: true });
  private readonly selectAll = h('button', { type: 'button', 'data-testid': 'select-all' }, 'Select all shown');
  private readonly clear = h('button', { type: 'button', 'data-testid': 'clear-selection' }, 'Clear selection');
  private readonly banner = h('div', { class: 'banner', hidden: true, 'data-testid': 'id-filter-banner' });
  // The text filter is a server-side search (issue 21): its results replace the list while a text is typed.
  private readonly textSearch = new CardSearch((st) => this.showSearch(st));
  private alive = true;
  private readonly unsubscribe: () => void;

  constructor(root: HTMLElement, private readonly route: CardsRoute, private readonly s: Session) {
    this.filter = { tag: route.tag, text: route.q, ids: parseIdList(route.cards), scope: route.scope };
    this.list = new CardList(() => this.renderActions(), s.user!.uid);
    this.embedding = new EmbeddingStatus(s.user!.uid);
    this.scopeSelect.value = route.scope ?? '';
    this.search = h('input', { id: 'card-search', type: 'search', value: route.q, 'data-testid': 'card-search', placeholder: 'Words in title or text' });
    this.layout(root);
    this.wireControls();
    if (route.chat) this.loadChatCards(route.chat);
    this.unsubscribe = watchCards(
      s.user!.uid,
      (lists) => {
        this.cards = mergeCards(...lists);
        this.renderTags();
        if (!route.chat || this.filter.ids) this.renderList();
      },
      (err) => this.list.showError(`Could not load cards: ${describeError(err)}`),
    );
    this.search.focus();
    if (!route.chat) this.textSearch.update(this.filter);
  }

  dispose(): void {
    this.alive = false;
    this.list.dispose();
    this.embedding.dispose();
    this.textSearch.dispose();
    this.unsubscribe();
  }

  private layout(root: HTMLElement): void {
    const aiNote = this.s.mayUseAi ? null : h('p', { class: 'hint' }, 'Your account is not enabled for AI chat; ask an admin, or add your own API key in Settings.');
    replaceChildren(root, h('section', { class: 'cards-view' },
      h('div', { class: 'toolbar' },
        h('div', { class: 'field' }, h('label', { for: 'card-search' }, 'Filter'), this.search),
        h('div', { class: 'field' }, h('label', { for: 'card-tag' }, 'Tag'), this.tagSelect),
        h('div', { class: 'field' }, h('label', { for: 'card-scope' }, 'Whose'), this.scopeSelect),
        h('span', { class: 'spacer' }),
        h('a', { href: '/new', class: 'button', 'data-testid': 'new-card' }, 'New card'),
        h('a', { href: '/import', class: 'button', 'data-testid': 'import-cards' }, 'Import'),
      ),
      this.banner,
      this.list.el,
      h('div', { class: 'action-bar' }, this.count, this.embedding.el, h('span', { class: 'spacer' }),
        exportButtons(() => this.chosenCards(), this.s.user!.uid), this.selectAll, this.clear, this.chatButton),
      aiNote,
    ));
  }

  private wireControls(): void {
    this.search.addEventListener('input', () => {
      // The URL follows every keystroke, so a remount (sign-in, profile load) keeps the filter.
      this.filter.text = this.search.value.trim();
      this.syncUrl();
      this.textSearch.update(this.filter);
    });
    this.tagSelect.addEventListener('change', () => {
      this.filter.tag = this.tagSelect.value || null;
      this.syncUrl();
      this.textSearch.update(this.filter);
      this.renderList();
    });
    this.scopeSelect.addEventListener('change', () => {
      this.filter.scope = (this.scopeSelect.value || null) as CardScope | null;
      this.syncUrl();
      this.textSearch.update(this.filter);
      this.renderList();
    });
    this.selectAll.addEventListener('click', () => this.list.selectAll(this.shown));
    this.clear.addEventListener('click', () => this.list.clearSelection());
    this.chatButton.addEventListener('click', () => this.startChat());
  }

  /** A chat's "its cards" link: show exactly the cards that chat was made from. */
  private loadChatCards(chatId: string): void {
    getChatPrivate(chatId).then(
      (priv) => {
        if (!this.alive) return;
        this.filter.ids = priv?.card_ids.filter(Boolean) ?? [];
        this.renderList();
      },
      (err) => {
        this.filter.ids = [];
        replaceChildren(this.banner, `Could not read that chat’s cards: ${describeError(err)}`);
      },
    );
  }

  private selectedCount(): number {
    return this.shown.filter((c) => this.list.selected.has(c.id)).length;
  }

  /** The selected cards among those shown (in the displayed order), or all shown when none is selected. */
  private chosenCards(): CardDoc[] {
    const sel = this.shown.filter((c) => this.list.selected.has(c.id));
    // a search hit carries a snippet, not the body: an export takes the loaded card
    const loaded = new Map(this.cards?.map((c) => [c.id, c]));
    return (sel.length ? sel : this.shown).map((c) => loaded.get(c.id) ?? c);
  }

  private chosen(): string[] {
    return this.chosenCards().map((c) => c.id);
  }

  private startChat(): void {
    const selCount = this.selectedCount();
    const { filter, route } = this;
    openStartChat({
      cardIds: this.chosen(),
      // no selection: the whole filtered collection, as a query the server resolves (not N ids)
      query: selCount ? null : filterQuery(filter),
      count: this.collectionSize(),
      description: describeCollection(filter, selCount || null),
      configuration: { tag: filter.tag, text: filter.text, selected: selCount > 0, from_chat: route.chat },
    });
  }

  private syncUrl(): void {
    const p = new URLSearchParams();
    if (this.filter.tag) p.set('tag', this.filter.tag);
    if (this.filter.text) p.set('q', this.filter.text);
    if (this.filter.scope) p.set('scope', this.filter.scope);
    if (this.route.cards) p.set('cards', this.route.cards);
    if (this.route.chat) p.set('chat', this.route.chat);
    const qs = p.toString();
    history.replaceState(null, '', qs ? `/?${qs}` : '/');
  }

  private renderTags(): void {
    if (!this.cards) return;
    const current = this.filter.tag ?? '';
    replaceChildren(this.tagSelect, h('option', { value: '' }, 'All tags'),
      tagCounts(this.cards).map(([t, n]) => h('option', { value: t }, `${t} (${n})`)));
    this.tagSelect.value = current;
  }

  private renderActions(): void {
    if (!this.cards && this.textSearch.state.kind === 'idle') return;
    const selCount = this.selectedCount();
    const shown = this.shown.length;
    this.count.textContent = `${shown} card${shown === 1 ? '' : 's'} shown` + (selCount ? ` · ${selCount} selected` : '');
    const search = this.textSearch.state;
    if (search.kind !== 'idle') this.count.textContent = describeSearch(search) + (selCount ? ` · ${selCount} selected` : '');
    const n = selCount ? selCount : this.collectionSize();
    this.chatButton.textContent = `Chat with ${selCount ? 'these' : 'all'} ${n} card${n === 1 ? '' : 's'}`;
    // while a search is under way or failed, "all" has no number yet
    this.chatButton.disabled = n === 0 || !this.s.mayUseAi || search.kind === 'searching' || search.kind === 'error';
    this.clear.disabled = this.list.selected.size === 0;
  }

  /** How many cards "Chat with all" takes: those shown, or while searching all that hold a word of the text. */
  private collectionSize(): number {
    const search = this.textSearch.state;
    return search.kind === 'results' && !this.filter.ids ? search.matching : this.chosen().length;
  }

  private showSearch(state: SearchState): void {
    if (state.kind === 'idle') return this.renderList();
    if (state.kind === 'results') {
      this.shown = state.cards;
      this.list.show(state.cards, `No card matches “${state.text}”.`);
    } else if (state.kind === 'error') {
      this.shown = [];
      this.list.showError(state.message);
    }
    this.renderActions();
  }

  private renderList(): void {
    if (!this.cards || this.textSearch.state.kind !== 'idle') return;
    this.shown = filterCards(this.cards, this.filter, this.s.user!.uid);
    this.banner.hidden = !this.filter.ids;
    if (this.filter.ids) {
      replaceChildren(this.banner, `Showing exactly ${this.filter.ids.length} cards (${this.shown.length} visible to you). `,
        h('a', { href: '/', 'data-testid': 'show-all-cards' }, 'Show all cards'));
    }
    this.list.show(this.shown, this.cards.length ? 'No card matches this filter.' : 'You have no cards yet.');
    this.renderActions();
  }
}
