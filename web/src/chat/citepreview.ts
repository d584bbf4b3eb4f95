// Citation previews: hovering or focusing [n] (a first tap on a
// touch screen) shows the card's title, tags and the passage best matching
// the sentence the citation ends. The card is read through Firestore under
// the card rules, so a reader who may not view it (or a [n] that names no
// card they may know) gets "a card you cannot view". Click opens the card;
// Escape closes the preview.
import { sentences } from './claims';
import { h, replaceChildren } from '../app/dom';
import { bestPassage } from './passage';
import { markedAs, NO_PASSAGE } from './citationchecks';
import { getCard } from '../data/cardbyid';
import type { CardDoc } from '../data/shapes';

const CITE = 'a.cite, .cite-unavailable';
/** What a reader who may not view a cited card is told, in a preview and in the sources list. */
export const CANNOT_VIEW = 'A card you cannot view.';
const cards = new Map<string, Promise<CardDoc | null>>();

/** A cited card as this reader may read it (null: a card they cannot view), read once per page. */
export function loadCard(id: string): Promise<CardDoc | null> {
  let p = cards.get(id);
  if (!p) {
    // A denial and a missing card read the same: the rules answer both alike.
    p = getCard(id).catch(() => null);
    cards.set(id, p);
  }
  return p;
}

/** The sentence a citation ends: the block's text before it, from the last sentence end on. */
function citingSentence(cite: Element): string {
  const block = cite.closest('p, li') ?? cite.parentElement;
  if (!block) return '';
  const range = document.createRange();
  range.setStart(block, 0);
  range.setEndBefore(cite.closest('.citation') ?? cite);
  const before = range.toString();
  const found = sentences(before);
  return found.length ? before.slice(found[found.length - 1].start) : before;
}

export class CitePreview {
  readonly el = h('div', { class: 'cite-preview', role: 'tooltip', id: 'cite-preview', hidden: true, 'data-testid': 'cite-preview' });
  private anchor: HTMLElement | null = null;
  private touched = false;
  private showing = 0;

  constructor(root: HTMLElement) {
    root.addEventListener('mouseover', (e) => this.enter(e));
    root.addEventListener('focusin', (e) => this.enter(e));
    root.addEventListener('mouseout', (e) => this.leave(e));
    root.addEventListener('focusout', (e) => this.leave(e));
    root.addEventListener('pointerdown', (e) => { this.touched = e.pointerType === 'touch'; });
    root.addEventListener('click', (e) => this.tap(e));
    document.addEventListener('keydown', this.onKey);
    this.el.addEventListener('mouseleave', () => this.hide());
    document.body.appendChild(this.el);
  }

  dispose(): void {
    document.removeEventListener('keydown', this.onKey);
    this.el.remove();
  }

  private readonly onKey = (e: KeyboardEvent): void => {
    if (e.key === 'Escape' && !this.el.hidden) {
      this.hide(); // focus stays where it was: on the citation, if the keyboard opened it
    }
  };

  private citeOf(e: Event): HTMLElement | null {
    return (e.target as Element | null)?.closest?.(CITE) as HTMLElement | null;
  }

  private enter(e: Event): void {
    const cite = this.citeOf(e);
    if (cite && cite !== this.anchor) void this.show(cite);
  }

  private leave(e: Event): void {
    const to = (e as MouseEvent | FocusEvent).relatedTarget as Node | null;
    if (!this.anchor || (to && (this.el.contains(to) || this.anchor.contains(to)))) return;
    if (this.citeOf(e) === this.anchor) this.hide();
  }

  // On a touch screen the first tap previews; a tap on the preview's link opens the card.
  private tap(e: MouseEvent): void {
    const cite = this.citeOf(e);
    if (!cite || !this.touched || cite === this.anchor && !this.el.hidden) return;
    e.preventDefault();
    void this.show(cite);
  }

  private hide(): void {
    this.showing += 1;
    this.anchor?.removeAttribute('aria-describedby');
    this.anchor = null;
    this.el.hidden = true;
  }

  private async show(cite: HTMLElement): Promise<void> {
    const ticket = ++this.showing;
    this.anchor = cite;
    cite.setAttribute('aria-describedby', this.el.id);
    const id = cite.dataset.cardId ?? '';
    replaceChildren(this.el, h('p', { class: 'muted' }, id ? 'Loading card…' : CANNOT_VIEW));
    this.el.hidden = false;
    this.place(cite);
    if (!id) return;
    const card = await loadCard(id);
    if (ticket !== this.showing) return;
    replaceChildren(this.el, ...(card ? this.cardContent(card, cite) : [h('p', { 'data-testid': 'cite-preview-denied' }, CANNOT_VIEW)]));
    this.place(cite);
  }

  private cardContent(card: CardDoc, cite: HTMLElement): Array<HTMLElement | null> {
    const p = bestPassage(card.body, citingSentence(cite));
    const unsaid = markedAs(cite) !== null; // the server found no passage of this card saying the claim
    return [
      h('p', { class: 'cite-title', 'data-testid': 'cite-preview-title' }, card.title || '(untitled)'),
      card.tags.length ? h('p', { class: 'tags' }, card.tags.map((t) => h('span', { class: 'tag' }, t))) : null,
      unsaid ? h('p', { class: 'muted', 'data-testid': 'cite-preview-unsaid' }, NO_PASSAGE) : null,
      !unsaid && p.match ? h('p', { class: 'cite-passage' }, p.before ? `${p.before} ` : '', h('mark', null, p.match), p.after ? ` ${p.after}` : '') : null,
    ];
  }

  // Below the citation, kept inside the viewport; a sheet along the bottom on a narrow screen (CSS).
  private place(cite: HTMLElement): void {
    const r = cite.getBoundingClientRect();
    const width = Math.min(360, window.innerWidth - 16);
    this.el.style.left = `${Math.max(8, Math.min(r.left, window.innerWidth - width - 8))}px`;
    const below = r.bottom + 6;
    const height = this.el.offsetHeight;
    this.el.style.top = `${below + height > window.innerHeight && r.top > height + 6 ? r.top - height - 6 : below}px`;
  }
}
