// The list of cards shown in the cards view: one element per card (reused
// while the card is unchanged), its selection box, and its Markdown body
// rendered only when it nears the viewport.
import { cardScope, type CardDoc } from '../cardfilter';
import { h, replaceChildren } from '../dom';
import { renderMarkdown } from '../markdown';
import { cardEditPath } from '../router';

interface Rendered { key: number; el: HTMLElement; box: HTMLInputElement }

export class CardList {
  readonly el = h('div', { class: 'card-list', 'data-testid': 'card-list' }, h('p', { class: 'muted' }, 'Loading cards…'));
  readonly selected = new Set<string>();
  private readonly rendered = new Map<string, Rendered>();
  private readonly pendingBodies = new WeakMap<Element, string>();
  // A deck holds a thousand cards and most are never scrolled to.
  private readonly lazy = new IntersectionObserver((entries) => this.renderVisible(entries), { rootMargin: '800px 0px' });

  constructor(private readonly onSelectionChange: () => void, private readonly uid = '') {}

  show(cards: CardDoc[], emptyText: string): void {
    replaceChildren(this.el, cards.length
      ? cards.map((c) => this.cardElement(c).el)
      : h('p', { class: 'muted', 'data-testid': 'no-cards' }, emptyText));
  }

  showError(text: string): void {
    replaceChildren(this.el, h('p', { class: 'error', role: 'alert' }, text));
  }

  selectAll(cards: CardDoc[]): void {
    for (const c of cards) {
      this.selected.add(c.id);
      this.rendered.get(c.id)!.box.checked = true;
    }
    this.onSelectionChange();
  }

  clearSelection(): void {
    this.selected.clear();
    this.rendered.forEach((r) => (r.box.checked = false));
    this.onSelectionChange();
  }

  dispose(): void {
    this.lazy.disconnect();
  }

  private renderVisible(entries: IntersectionObserverEntry[]): void {
    for (const e of entries) {
      const md = e.isIntersecting ? this.pendingBodies.get(e.target) : undefined;
      if (md === undefined) continue;
      e.target.innerHTML = renderMarkdown(md);
      this.pendingBodies.delete(e.target);
      this.lazy.unobserve(e.target);
    }
  }

  private cardElement(c: CardDoc): Rendered {
    const cached = this.rendered.get(c.id);
    if (cached && cached.key === c.updated) return cached;
    const box = this.selectBox(c.id);
    const body = h('div', { class: 'card-body markdown' }, h('p', null, c.body.slice(0, 400)));
    this.pendingBodies.set(body, c.body);
    this.lazy.observe(body);
    const el = h('article', { class: 'card', 'data-testid': 'card', 'data-card-id': c.id },
      h('header', null,
        box,
        h('label', { for: `sel-${c.id}`, class: 'card-title' }, c.title || '(untitled)'),
        scopeChip(cardScope(c, this.uid)),
        c.visibility === 'private' ? h('span', { class: 'chip' }, 'private') : null,
        h('a', { href: `/card/${encodeURIComponent(c.id)}`, class: 'open', 'aria-label': `Open ${c.title}` }, 'Open'),
        c.owner === this.uid ? h('a', { href: cardEditPath(c.id), class: 'open', 'data-testid': 'card-edit', 'aria-label': `Edit ${c.title}` }, 'Edit') : null,
      ),
      c.tags.length ? h('p', { class: 'tags' }, c.tags.map((t) => h('span', { class: 'tag' }, t))) : null,
      body,
      showMoreButton(body),
    );
    const entry = { key: c.updated, el, box };
    this.rendered.set(c.id, entry);
    return entry;
  }

  private selectBox(id: string): HTMLInputElement {
    const box = h('input', { type: 'checkbox', id: `sel-${id}`, 'data-testid': 'card-select' });
    box.checked = this.selected.has(id);
    box.addEventListener('change', () => {
      if (box.checked) this.selected.add(id);
      else this.selected.delete(id);
      this.onSelectionChange();
    });
    return box;
  }
}

const SCOPE_LABELS = { yours: 'yours', shared: 'shared with you', public: 'public' } as const;

function scopeChip(scope: keyof typeof SCOPE_LABELS): HTMLElement {
  return h('span', { class: `chip scope-${scope}`, 'data-testid': 'card-scope' }, SCOPE_LABELS[scope]);
}

function showMoreButton(body: HTMLElement): HTMLButtonElement {
  const more = h('button', { type: 'button', class: 'link', 'aria-expanded': 'false' }, 'Show more');
  more.addEventListener('click', () => {
    const open = body.classList.toggle('expanded');
    more.textContent = open ? 'Show less' : 'Show more';
    more.setAttribute('aria-expanded', String(open));
  });
  return more;
}
