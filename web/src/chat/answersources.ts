// Under each complete answer: the cards it cites, by number and title, each
// a link to its card page. Folded until the reader opens it: a title is read
// with its card (citepreview.loadCard, under the card rules), and a chat's
// page must not download the cards behind it unasked (the hover previews
// wait for a hover the same way). A reader who may not view a card, or a
// visitor for whom it is not public, sees "a card you cannot view" and no link.
import { cardHref, type Source } from './citations';
import { h, replaceChildren } from '../app/dom';
import { CANNOT_VIEW, loadCard } from './citepreview';
import type { PinState } from './pincontrols';

export class AnswerSources {
  readonly el = h('details', { class: 'answer-sources', 'data-testid': 'answer-sources', hidden: true });
  private shown = '';
  private sources: readonly Source[] = [];
  private listed = false;

  /** `pins`: the owner's pin and exclude controls beside each card; null for anyone else. */
  constructor(private readonly pins: PinState | null = null) {
    this.el.addEventListener('toggle', () => { if (this.el.open) this.list(); });
  }

  /**
   * `sources` of a complete answer; null (or none cited) hides the list.
   * `nearest`: the answer says the cards don't cover its question, so what
   * it cites are the nearest cards, not its sources.
   */
  update(sources: readonly Source[] | null, nearest = false): void {
    const key = JSON.stringify([sources, nearest]);
    if (key === this.shown) return;
    this.shown = key;
    this.sources = sources ?? [];
    this.listed = false;
    this.el.hidden = !this.sources.length;
    if (!this.sources.length) {
      replaceChildren(this.el);
      return;
    }
    const n = this.sources.length;
    replaceChildren(this.el, h('summary', { class: 'sources-head', 'data-testid': 'answer-sources-open' },
      `${nearest ? 'Nearest cards' : 'Sources'} (${n} card${n === 1 ? '' : 's'})`));
    if (this.el.open) this.list();
  }

  /** The entries, made (and their cards read) the first time the reader opens the list. */
  private list(): void {
    if (this.listed || !this.sources.length) return;
    this.listed = true;
    this.el.appendChild(h('ol', { class: 'sources' }, this.sources.map((s) => this.item(s))));
  }

  private item({ n, cardId }: Source): HTMLElement {
    const li = h('li', { 'data-testid': 'answer-source', 'data-n': String(n) }, h('span', { class: 'source-n' }, `[${n}]`), ' ');
    const denied = () => li.appendChild(h('span', { class: 'muted', 'data-testid': 'answer-source-denied' }, CANNOT_VIEW));
    if (!cardId) {
      denied();
      return li;
    }
    const placeholder = li.appendChild(h('span', { class: 'muted' }, 'Loading card…'));
    void loadCard(cardId).then((card) => {
      placeholder.remove();
      if (!card) {
        denied();
        return;
      }
      li.appendChild(h('a', { href: cardHref(cardId), 'data-card-id': cardId, 'data-testid': 'answer-source-link' },
        card.title || '(untitled)'));
      if (this.pins) li.appendChild(this.pins.controls(cardId));
    });
    return li;
  }
}
