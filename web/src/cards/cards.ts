// The cards view: the user's own cards first, others' only from a source they chose (sourcepicker.ts), a page
// at a time (a collection may be too big to load whole), filtered by Firestore queries, counted by aggregation
// queries, live for what changes while it is open, selectable, its filter saved as a collection (savecollection.ts).
import { describeCollection, parseIdList, type CardFilter } from './cardfilter';
import { CardPager, cardOrder } from '../data/cardpager';
import { retryDelay } from '../data/retry';
import { readCards, watchCardChanges, type CardChange, type ScopeSpec } from '../data/cardqueries';
import { h, replaceChildren } from '../app/dom';
import { describeError } from '../app/errors';
import { failureText, listView } from '../app/loadstate';
import { cardsPath, reviewPath, router, type Route } from '../app/router';
import { onSession, session, type Session } from '../data/session';
import { getChatPrivate } from '../data/chatreads';
import { filterQuery } from './collectionquery';
import { CardCounts } from './cardcounts';
import { CardList } from './cardlist';
import { describeSearch } from './cardsearch';
import { listContentFor, type ListContent } from './listcontent';
import { EmbeddingStatus } from './embeddingstatus';
import { exportButtons } from '../importexport/exportmenu';
import { emptySourceText, SourcePicker, type SourceChoice } from './sourcepicker';
import { mark } from '../app/timing';
import { whenLoaded } from '../app/lazypage';
import type { CardDoc, CardSources } from '../data/shapes';

type CardsRoute = Extract<Route, { name: 'cards' }>;
const PAGE = 50;
/** createChat's limit on an id list. */
const MAX_CHAT_IDS = 20_000;

export function mountCards(root: HTMLElement, route: CardsRoute, s: Session): () => void {
  const view = new CardsView(root, route, s);
  return () => view.dispose();
}

class CardsView {
  private pager: CardPager | null = null;
  private count: number | null = null;
  /** The reader's own cards, counted by the server: "You have no cards yet" only when it is 0. */
  private total: number | null = null;
  private listContent: ListContent | null = null;
  private readonly filter: CardFilter;
  private readonly list: CardList;
  private readonly search: HTMLInputElement;
  private readonly tags = new Set<string>();
  /** The pager's cards already looked at for tags. */
  private tagged = 0;
  private readonly tagSelect = h('select', { id: 'card-tag', 'data-testid': 'card-tag' });
  private readonly picker: SourcePicker;
  private readonly countEl = h('span', { 'data-testid': 'card-count', role: 'status' }, 'Loading cards…');
  private readonly chatButton = h('button', { type: 'button', class: 'primary', 'data-testid': 'chat-with-cards', disabled: true });
  private readonly selectAll = h('button', { type: 'button', 'data-testid': 'select-all' }, 'Select all');
  private readonly clear = h('button', { type: 'button', 'data-testid': 'clear-selection' }, 'Clear selection');
  private readonly banner = h('div', { class: 'banner', hidden: true, 'data-testid': 'id-filter-banner' });
  private debounce: ReturnType<typeof setTimeout> | undefined;
  private recount: ReturnType<typeof setTimeout> | undefined;
  private alive = true;
  private generation = 0;
  private stopChanges: () => void = () => {};
  private readonly since: Date;
  private readonly stopSession: () => void;
  private readonly embedding: EmbeddingStatus;
  private readonly counts: CardCounts;
  private readonly aiNote = h('p', { class: 'hint', hidden: true, 'data-testid': 'ai-note' },
    'Your account is not enabled for AI chat; ask an admin, or add your own API key in Settings.');
  /** What waits for the first page (counts, the live feed): null once it ran. */
  private afterFirstPage: Array<() => void> | null = [];
  private firstPageTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(root: HTMLElement, private readonly route: CardsRoute, private readonly s: Session) {
    mark('cards-mount');
    this.filter = { tag: route.tag, text: route.q, ids: parseIdList(route.cards), scope: route.scope, owner: route.owner };
    this.picker = new SourcePicker(s.user!.uid, this.choice(), (c) => this.pick(c), (srcs) => this.sourcesChanged(srcs));
    this.embedding = new EmbeddingStatus(s.user!.uid);
    this.counts = new CardCounts(s.user!.uid);
    this.list = new CardList(() => this.renderActions(), this.uid, (n) => this.pager?.want(n));
    this.search = h('input', { id: 'card-search', type: 'search', value: route.q, 'data-testid': 'card-search', placeholder: 'Words in title or text' });
    this.layout(root);
    this.wireControls();
    this.renderTags();
    this.stopSession = onSession(() => this.renderActions());
    // A little before now: the server stamps `updated`, and the clocks may differ a little.
    this.since = new Date(Date.now() - 2000);
    // The first screen needs one query, the first page; on the emulator every
    // other query scans the collection too and delays it. The counts,
    // the live feed and the embedding progress start once it answered (or 3 s on).
    // A "Shared with me" list waits for card_sources, whom the reader accepted (sourcesChanged); others read it later.
    const shared = !route.chat && this.spec().scope === 'shared';
    this.whenFirstPage(() => {
      this.countScopes();
      this.watchChanges();
      this.embedding.start();
      if (!shared) this.picker.start();
    });
    this.firstPageTimer = setTimeout(() => this.firstPageDone(), 3000);
    if (route.chat) this.loadChatCards(route.chat);
    else if (shared) this.picker.start();
    else this.reload();
    this.search.focus();
  }

  private get uid(): string {
    return this.s.user!.uid;
  }

  /** Whose cards the list shows; an id list names its cards itself (a scope then only narrows it). */
  private spec(): ScopeSpec {
    const f = this.filter;
    return { scope: f.scope ?? 'mine', owner: f.owner ?? null, acceptedSharers: f.acceptedSharers ?? [] };
  }

  private choice(): SourceChoice {
    return { scope: this.spec().scope, owner: this.spec().owner, tag: this.filter.tag };
  }

  private watchChanges(): void {
    this.stopChanges();
    this.stopChanges = watchCardChanges(this.uid, this.spec(), this.since, (changes) => this.applyChanges(changes), () => {});
  }

  /** The reader picked another source: its own cards, its own tag. */
  private pick(c: SourceChoice): void {
    Object.assign(this.filter, { scope: c.scope, owner: c.owner, tag: c.tag });
    this.tags.clear();
    this.picker.setCurrent(this.choice());
    this.syncUrl();
    this.countScopes();
    this.reload();
    if (!this.afterFirstPage) this.watchChanges();
  }

  /** The reader's card_sources answered or changed: a "Shared with me" list takes whom they accepted. */
  private sourcesChanged(s: CardSources): void {
    const before = this.filter.acceptedSharers;
    this.filter.acceptedSharers = s.accepted_sharers;
    if (this.spec().scope !== 'shared' || this.route.chat || before?.join('\n') === s.accepted_sharers.join('\n')) return;
    if (before) this.countScopes();
    this.reload();
  }

  private whenFirstPage(run: () => void): void {
    if (this.afterFirstPage) this.afterFirstPage.push(run);
    else run();
  }

  private firstPageDone(): void {
    const waiting = this.afterFirstPage;
    if (!waiting || !this.alive) return;
    this.afterFirstPage = null;
    clearTimeout(this.firstPageTimer);
    waiting.forEach((run) => run());
  }

  private applyChanges(changes: CardChange[]): void {
    for (const change of changes) {
      if (change.type === 'upsert' && this.listContent?.admits?.(change.card)) this.pager?.upsert(change.card);
      else this.pager?.remove(change.type === 'upsert' ? change.card.id : change.id);
    }
    this.scheduleRecount();
  }

  dispose(): void {
    this.alive = false;
    this.pager?.dispose();
    this.list.dispose();
    this.embedding.dispose();
    clearTimeout(this.debounce);
    clearTimeout(this.recount);
    clearTimeout(this.firstPageTimer);
    this.stopChanges();
    this.stopSession();
    this.picker.dispose();
  }

  /** Shows `ls` in the list from its start: the seam for other content (a search's results). */
  setContent(ls: ListContent): void {
    this.pager?.dispose();
    const gen = ++this.generation;
    this.listContent = ls;
    this.count = null;
    this.tagged = 0;
    if (gen > 1) window.scrollTo(0, 0);
    this.pager = new CardPager(ls.pages, { pageSize: PAGE, order: ls.ordered ? cardOrder : undefined }, () => this.renderList());
    this.whenFirstPage(() => this.awaitCount(gen, ls, 0));
    this.pager.want(PAGE);
    this.renderList();
  }

  /** The view's count; a failed count is asked again (the list meanwhile says what failed, if it fails too). */
  private awaitCount(gen: number, ls: ListContent, attempt: number): void {
    ls.count().then((n) => {
      if (gen !== this.generation || !this.alive) return;
      this.count = n;
      // No query counts it: read to the end and count what came.
      if (n === null) this.pager?.want(Number.MAX_SAFE_INTEGER);
      this.renderList();
    }, () => {
      if (gen !== this.generation || !this.alive) return;
      setTimeout(() => this.awaitCount(gen, ls, attempt + 1), retryDelay(attempt + 1));
    });
  }

  /** The list for the filter as it is now. */
  private reload(): void {
    this.setContent(listContentFor(this.filter, this.uid, this.spec(), this.counts));
  }

  private layout(root: HTMLElement): void {
    // the page's one heading, for screen readers' heading navigation (the toolbar says the rest to the eye)
    replaceChildren(root, h('section', { class: 'cards-view' }, h('h1', { class: 'visually-hidden' }, 'Cards'),
      h('div', { class: 'toolbar' },
        h('div', { class: 'field' }, h('label', { for: 'card-search' }, 'Filter'), this.search),
        h('div', { class: 'field' }, h('label', { for: 'card-tag' }, 'Tag'), this.tagSelect),
        this.picker.el, h('span', { class: 'spacer' }), h('button', { type: 'button', 'data-testid': 'save-collection',
          onclick: () => void whenLoaded(() => import('./savecollection'), (m) => m.openSaveDialog(this.uid, this.filter)) }, 'Save as collection'),
        h('button', { type: 'button', 'data-testid': 'review-cards', onclick: () => router.navigate(reviewPath({ query: filterQuery(this.filter) ?? {} })) }, 'Review'),
        h('a', { href: '/new', class: 'button', 'data-testid': 'new-card' }, 'New card'), h('a', { href: '/import', class: 'button', 'data-testid': 'import-cards' }, 'Import'),
      ),
      this.picker.sharersEl,
      this.banner,
      this.list.el,
      h('div', { class: 'action-bar' }, this.countEl, this.embedding.el, h('span', { class: 'spacer' }),
        exportButtons(() => this.chosenCards(), this.uid), this.selectAll, this.clear, this.chatButton),
      this.aiNote,
    ));
  }

  private wireControls(): void {
    this.search.addEventListener('input', () => {
      // The URL follows every keystroke, so a remount (sign-in, profile load) keeps the filter.
      this.filter.text = this.search.value.trim();
      this.syncUrl();
      clearTimeout(this.debounce);
      this.debounce = setTimeout(() => this.reload(), 300);
    });
    this.tagSelect.addEventListener('change', () => {
      this.filter.tag = this.tagSelect.value || null;
      this.picker.setCurrent(this.choice());
      this.syncUrl();
      this.countScopes();
      this.reload();
    });
    this.selectAll.addEventListener('click', () => void this.selectEverything());
    this.clear.addEventListener('click', () => this.list.clearSelection());
    this.chatButton.addEventListener('click', () => void this.startChat());
  }

  /** A chat's "its cards" link: show exactly the cards that chat was made from. */
  private loadChatCards(chatId: string): void {
    getChatPrivate(chatId).then(
      (priv) => {
        if (!this.alive) return;
        this.filter.ids = priv?.card_ids.filter(Boolean) ?? [];
        this.reload();
      },
      (err) => {
        this.filter.ids = [];
        this.reload();
        replaceChildren(this.banner, `Could not read that chat’s cards: ${describeError(err)}`);
      },
    );
  }

  /** Every card of the view, loaded (up to `max`) for an explicit action: select all, chat with all. */
  private async allCards(max: number): Promise<CardDoc[]> {
    if (!this.pager) return [];
    this.countEl.textContent = 'Loading the cards…';
    return this.pager.loadUpTo(max);
  }

  private async selectEverything(): Promise<void> {
    this.list.select(await this.allCards(MAX_CHAT_IDS));
  }

  /**
   * The cards an export or a chat takes: the selection, in the list's order,
   * else every card of the view (read to its end on this explicit request).
   */
  private async chosenCards(): Promise<CardDoc[]> {
    const position = new Map(this.pager?.cards.map((c, i) => [c.id, i]) ?? []);
    const at = (c: CardDoc) => position.get(c.id) ?? Number.MAX_SAFE_INTEGER;
    const cards = this.list.selected.size
      ? [...this.list.selected.values()].sort((a, b) => at(a) - at(b) || cardOrder(a, b))
      : await this.allCards(Number.MAX_SAFE_INTEGER);
    // A search hit carries a snippet, not the body: an export reads the stored cards.
    return cards.some((c) => c.updated === -1) ? readCards(cards.map((c) => c.id)) : cards;
  }

  private async startChat(): Promise<void> {
    const selCount = this.list.selected.size;
    const { filter, route } = this;
    // No selection: the whole filtered collection, as a query the server resolves (not N ids).
    const query = selCount ? null : filterQuery(filter);
    const cards = selCount ? await this.chosenCards() : query ? [] : await this.allCards(MAX_CHAT_IDS);
    this.renderActions();
    // Like "Save as collection", a dialog loaded on its first use (the first screen waits for neither).
    await whenLoaded(() => import('../chat/startchat'), (m) => m.openStartChat({
      cardIds: cards.map((c) => c.id),
      query,
      count: this.viewCount() ?? 0,
      description: describeCollection(filter, selCount || null),
      configuration: { tag: filter.tag, text: filter.text, selected: selCount > 0, from_chat: route.chat },
    }));
  }

  private syncUrl(): void {
    const { tag, text, scope, owner } = this.filter;
    history.replaceState(null, '', cardsPath({ tag, q: text, scope: scope ?? null, owner: owner ?? null, cards: this.route.cards, chat: this.route.chat }));
  }

  /** The tags met in the cards loaded so far (a tag list of the whole collection would mean reading it all). */
  private renderTags(): void {
    const before = this.tags.size;
    const cards = this.pager?.cards ?? [];
    for (const c of cards.slice(this.tagged)) for (const t of c.tags) this.tags.add(t);
    this.tagged = cards.length;
    if (this.filter.tag) this.tags.add(this.filter.tag);
    if (before && before === this.tags.size) return;
    replaceChildren(this.tagSelect, h('option', { value: '' }, 'All tags'),
      [...this.tags].sort((a, b) => a.localeCompare(b)).map((t) => h('option', { value: t }, t)));
    this.tagSelect.value = this.filter.tag ?? '';
  }

  /** "Mine (10,000)": the menu's counts for the current tag, by aggregation queries (shared with the list's count). */
  private countScopes(attempt = 0): void {
    const { tag } = this.filter;
    const spec = (scope: 'mine' | 'shared'): ScopeSpec => ({ ...this.spec(), scope, owner: null });
    this.picker.setCounts({});
    Promise.all([this.counts.count(spec('mine'), tag), this.counts.count(spec('shared'), tag)]).then(([mine, shared]) => {
      if (!this.alive || tag !== this.filter.tag) return;
      if (!tag) this.total = mine;
      this.picker.setCounts({ mine, shared });
      this.renderList();
    }, () => {
      if (this.alive && tag === this.filter.tag) setTimeout(() => this.countScopes(attempt + 1), retryDelay(attempt + 1));
    });
    if (tag) void this.counts.count(spec('mine'), null).then((n) => { this.total = n; this.renderList(); }, () => {});
  }

  private scheduleRecount(): void {
    clearTimeout(this.recount);
    this.recount = setTimeout(() => {
      this.counts.forget();
      this.countScopes();
      if (this.listContent?.ordered && !this.filter.text && !this.filter.ids) {
        void this.counts.count(this.spec(), this.filter.tag).then((n) => { this.count = n; this.renderList(); }, () => {});
      }
    }, 1000);
  }

  /** How many the view holds: the server's count, else (nothing counts it) what the pager found once at the end. */
  private viewCount(): number | null {
    if (this.count !== null) return this.count;
    return this.pager?.done ? this.pager.cards.length : null;
  }

  private renderActions(): void {
    const n = this.viewCount();
    const loaded = this.pager?.cards.length ?? 0;
    const selCount = this.list.selected.size;
    const text = this.filter.text.trim();
    const searching = this.listContent !== null && this.listContent.admits === null && !!text;
    const shown = n === null ? `${loaded}+ cards…` : searching ? describeSearch(text, n, loaded) : `${n} card${n === 1 ? '' : 's'} shown`;
    this.countEl.textContent = shown + (selCount ? ` · ${selCount} selected` : '');
    const chatN = selCount || n || 0;
    this.chatButton.textContent = `Chat with ${selCount ? 'these' : 'all'} ${chatN} card${chatN === 1 ? '' : 's'}`;
    const { mayUseAi, aiChecked } = session();
    this.chatButton.disabled = chatN === 0 || !mayUseAi;
    this.aiNote.hidden = !aiChecked || mayUseAi;
    this.clear.disabled = selCount === 0;
  }

  private renderList(): void {
    const pager = this.pager;
    if (!pager || !this.alive) return;
    const f = this.filter;
    this.renderTags();
    this.banner.hidden = !f.ids;
    if (f.ids) {
      const seen = pager.done ? ` (${pager.cards.length} visible to you)` : '';
      replaceChildren(this.banner, `Showing exactly ${f.ids.length} cards${seen}. `,
        h('a', { href: '/', 'data-testid': 'show-all-cards' }, 'Show all cards'));
    }
    const filtered = !!(f.ids || f.tag || f.text.trim());
    // Another source than the reader's own: none in it is said of it, once the pager is at its end.
    const own = f.ids || this.spec().scope === 'mine';
    const total = own ? this.total : pager.done ? pager.cards.length : null;
    const view = listView('cards', { error: pager.error, shown: pager.cards.length, complete: pager.done, filtered: filtered && !!own, total });
    if (view.kind === 'empty' && !own) {
      this.list.showStatus(emptySourceText(this.choice(), filtered) ?? view.text, view.kind);
    } else if (view.kind === 'items') {
      const tail = pager.error !== null ? failureText('cards', pager.error) : pager.done ? null : 'Loading more cards…';
      this.list.show(pager.cards, tail, pager.error !== null);
    } else {
      this.list.showStatus(view.text, view.kind);
    }
    this.renderActions();
    if (pager.cards.length || pager.error !== null || pager.done) this.firstPageDone();
  }
}
