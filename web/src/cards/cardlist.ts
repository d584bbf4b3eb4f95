// The list of cards shown in the cards view, virtualised (a collection may be huge): only the
// cards on screen (and a few either side) are in the DOM, whatever the
// collection's size; heights are measured as cards render. Scrolling near the
// end of what is loaded asks the view for the next page.
import {
  Virtualizer, measureElement, observeWindowOffset, observeWindowRect, windowScroll, type VirtualizerOptions,
} from '@tanstack/virtual-core';
import { cardRelation, type CardRelation } from './cardfilter';
import { ownerLabel } from './cardsources';
import { h, replaceChildren } from '../app/dom';
import { loadBeside } from '../app/lazypage';
import { cardEditPath } from '../app/router';
import type { CardDoc } from '../data/shapes';

interface Rendered { key: number; el: HTMLElement; box: HTMLInputElement }

/** Cards kept rendered off screen, for scrolling back; the DOM holds only those on screen. */
const CACHE = 400;
/** The preview renders this much of the body; "Show more" renders the rest. */
const PREVIEW_CHARS = 1500;

export class CardList {
  readonly el = h('div', { class: 'card-list', 'data-testid': 'card-list' });
  /** The selected cards, by id: they stay selected (and exportable) when scrolled out of the DOM. */
  readonly selected = new Map<string, CardDoc>();
  private readonly sizer = h('div', { class: 'card-list-sizer' });
  private readonly status = h('p', { class: 'muted', role: 'status', 'data-testid': 'cards-loading' }, 'Loading cards…');
  private readonly tail = h('p', { class: 'muted list-tail', 'data-testid': 'list-tail' });
  private readonly rendered = new Map<string, Rendered>();
  private cards: readonly CardDoc[] = [];
  private tailText: string | null = null;
  private readonly virtualizer: Virtualizer<Window, HTMLElement>;
  private readonly options: VirtualizerOptions<Window, HTMLElement>;
  private readonly unmount: () => void;
  /**
   * Markdown (marked and DOMPurify) is a chunk of its own, asked for as the list is made and fetched
   * beside the first page of cards: until it has arrived a preview is the body's plain text, and the
   * cards on screen are drawn again when it does (docs/web.md, "Chunks").
   */
  private markdown: ((md: string) => string) | null = null;
  private readonly stopMarkdown: () => void;

  /** `onNearEnd(n)`: the reader is `n` cards from the start of what is on screen's end; load at least that many. */
  constructor(
    private readonly onSelectionChange: () => void,
    private readonly uid: string,
    private readonly onNearEnd: (wanted: number) => void,
  ) {
    this.options = {
      count: 0,
      getScrollElement: () => window,
      estimateSize: () => 190,
      gap: 12,
      overscan: 4,
      scrollToFn: windowScroll,
      observeElementRect: observeWindowRect,
      observeElementOffset: observeWindowOffset,
      measureElement,
      getItemKey: (i) => this.cards[i]?.id ?? `tail-${i}`,
      initialRect: { width: window.innerWidth, height: window.innerHeight },
      onChange: () => this.render(),
    };
    this.virtualizer = new Virtualizer(this.options);
    this.unmount = this.virtualizer._didMount();
    replaceChildren(this.el, this.status);
    // Drawn again only while the page is open (a left page's list asks for no more cards); without
    // the chunk the previews stay plain text and the rest of the page works.
    this.stopMarkdown = loadBeside(() => import('../app/markdown'), (m) => {
      this.markdown = m.renderMarkdown;
      this.rendered.clear();
      this.render();
    });
  }

  /** The list's cards (all loaded so far) and what its last row says while more are coming (null: nothing more). */
  show(cards: readonly CardDoc[], tail: string | null, tailFailed = false): void {
    this.cards = cards;
    this.tailText = tail;
    this.tail.className = tailFailed ? 'error list-tail' : 'muted list-tail';
    this.tail.setAttribute('role', tailFailed ? 'alert' : 'status');
    if (this.sizer.parentNode !== this.el) replaceChildren(this.el, this.sizer);
    this.update();
  }

  /** No cards to list: loading, a failure, or none (loadstate.ts says which). */
  showStatus(text: string, kind: 'loading' | 'failed' | 'empty'): void {
    this.cards = [];
    replaceChildren(this.el, this.status);
    this.status.textContent = text;
    this.status.className = kind === 'failed' ? 'error' : 'muted';
    this.status.setAttribute('role', kind === 'failed' ? 'alert' : 'status');
    this.status.dataset.testid = { loading: 'cards-loading', failed: 'load-failed', empty: 'no-cards' }[kind];
  }

  select(cards: readonly CardDoc[]): void {
    for (const c of cards) this.selected.set(c.id, c);
    this.rendered.forEach((r, id) => (r.box.checked = this.selected.has(id)));
    this.onSelectionChange();
  }

  clearSelection(): void {
    this.selected.clear();
    this.rendered.forEach((r) => (r.box.checked = false));
    this.onSelectionChange();
  }

  dispose(): void {
    this.stopMarkdown();
    this.unmount();
  }

  private update(): void {
    const top = this.el.getBoundingClientRect().top + window.scrollY;
    this.virtualizer.setOptions({ ...this.options, count: this.cards.length + (this.tailText === null ? 0 : 1), scrollMargin: top });
    this.virtualizer._willUpdate();
    this.render();
  }

  private rendering = false;
  private again = false;

  /** Measuring a card may change the layout and call back here: one pass at a time, repeated until it settles. */
  private render(): void {
    if (this.rendering) {
      this.again = true;
      return;
    }
    this.rendering = true;
    try {
      // A few passes at most: a layout that never settles must not hang the page.
      for (let pass = 0; pass === 0 || (this.again && pass < 5); pass++) {
        this.again = false;
        this.renderOnce();
      }
    } finally {
      this.rendering = false;
    }
  }

  private renderOnce(): void {
    const v = this.virtualizer;
    const items = v.getVirtualItems();
    this.sizer.style.height = `${v.getTotalSize()}px`;
    const keep = new Set<Element>();
    for (const it of items) {
      const card = this.cards[it.index];
      const el = card ? this.cardElement(card).el : this.tail;
      if (!card) this.tail.textContent = this.tailText;
      el.dataset.index = String(it.index);
      el.style.transform = `translateY(${it.start - (v.options.scrollMargin ?? 0)}px)`;
      if (el.parentNode !== this.sizer) this.sizer.appendChild(el);
      keep.add(el);
    }
    for (const child of [...this.sizer.children]) if (!keep.has(child)) child.remove();
    for (const el of keep) v.measureElement(el as HTMLElement);
    const last = items.at(-1)?.index ?? 0;
    if (last >= this.cards.length - 10) this.onNearEnd(last + 30);
  }

  private cardElement(c: CardDoc): Rendered {
    const cached = this.rendered.get(c.id);
    if (cached && cached.key === c.updated) {
      cached.box.checked = this.selected.has(c.id);
      return cached;
    }
    if (this.rendered.size > CACHE) this.rendered.clear();
    const box = this.selectBox(c);
    const body = this.preview(c.body.slice(0, PREVIEW_CHARS));
    const el = h('article', { class: 'card', 'data-testid': 'card', 'data-card-id': c.id },
      h('header', null,
        box,
        h('label', { for: `sel-${c.id}`, class: 'card-title' }, c.title || '(untitled)'),
        scopeChip(cardRelation(c, this.uid), c.owner),
        c.visibility === 'private' ? h('span', { class: 'chip' }, 'private') : null,
        h('a', { href: `/card/${encodeURIComponent(c.id)}`, class: 'open', 'aria-label': `Open ${c.title}` }, 'Open'),
        c.owner === this.uid ? h('a', { href: cardEditPath(c.id), class: 'open', 'data-testid': 'card-edit', 'aria-label': `Edit ${c.title}` }, 'Edit') : null,
      ),
      c.tags.length ? h('p', { class: 'tags' }, c.tags.map((t) => h('span', { class: 'tag' }, t))) : null,
      body,
      showMoreButton(body, c.body, (md) => this.preview(md).innerHTML),
    );
    const entry = { key: c.updated, el, box };
    this.rendered.set(c.id, entry);
    return entry;
  }

  private preview(markdown: string): HTMLElement {
    const render = this.markdown;
    return render ? h('div', { class: 'card-body markdown', html: render(markdown) }) : h('div', { class: 'card-body' }, markdown);
  }

  private selectBox(c: CardDoc): HTMLInputElement {
    const box = h('input', { type: 'checkbox', id: `sel-${c.id}`, 'data-testid': 'card-select' });
    box.checked = this.selected.has(c.id);
    box.addEventListener('change', () => {
      if (box.checked) this.selected.set(c.id, c);
      else this.selected.delete(c.id);
      this.onSelectionChange();
    });
    return box;
  }
}

/** Whose the card is: "mine", or whose it is for another owner's ("shared by bob", "public, bob's"). */
function scopeChip(relation: CardRelation, owner: string): HTMLElement {
  const text = relation === 'mine' ? 'mine'
    : relation === 'shared' ? `shared by ${ownerLabel(owner)}` : `public, ${ownerLabel(owner)}’s`;
  return h('span', { class: `chip scope-${relation}`, 'data-testid': 'card-scope' }, text);
}

function showMoreButton(body: HTMLElement, markdown: string, render: (md: string) => string): HTMLButtonElement {
  const more = h('button', { type: 'button', class: 'link', 'aria-expanded': 'false' }, 'Show more');
  let whole = markdown.length <= PREVIEW_CHARS;
  more.addEventListener('click', () => {
    if (!whole) {
      body.innerHTML = render(markdown);
      whole = true;
    }
    const open = body.classList.toggle('expanded');
    more.textContent = open ? 'Show less' : 'Show more';
    more.setAttribute('aria-expanded', String(open));
  });
  return more;
}
