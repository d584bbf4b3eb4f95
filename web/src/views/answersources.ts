// Under each complete answer: the cards it cites, by number and title, each
// a link to its card page. Titles are read as the citation previews read them
// (citepreview.loadCard, under the card rules), so a reader who may not view
// a card, or a visitor for whom it is not public, sees "a card you cannot
// view" and no link.
import { cardHref, type Source } from '../citations';
import { h, replaceChildren } from '../dom';
import { CANNOT_VIEW, loadCard } from './citepreview';

export class AnswerSources {
  readonly el = h('section', { class: 'answer-sources', 'data-testid': 'answer-sources', 'aria-label': 'Sources', hidden: true });
  private shown = '';

  /** `sources` of a complete answer; null (or none cited) hides the list. */
  update(sources: readonly Source[] | null): void {
    const key = JSON.stringify(sources);
    if (key === this.shown) return;
    this.shown = key;
    this.el.hidden = !sources?.length;
    if (!sources?.length) {
      replaceChildren(this.el);
      return;
    }
    replaceChildren(this.el, h('h3', { class: 'sources-head' }, 'Sources'),
      h('ol', { class: 'sources' }, sources.map((s) => this.item(s))));
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
    });
    return li;
  }
}
