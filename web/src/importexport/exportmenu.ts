// "Download Markdown" / "Download JSON" of the cards a view has chosen (the
// selection, else every card of the view, read on this request), in the order
// shown. exportcards.ts builds the text.
import { h } from '../app/dom';
import { whenLoaded } from '../app/lazypage';
import type { CardDoc } from '../data/shapes';

// The exporters load on the first download, not with the page that offers them.
const exporters = () => import('./exportcards');

export function exportButtons(chosen: () => Promise<CardDoc[]>, uid: string): HTMLElement {
  const stamp = () => new Date().toISOString().slice(0, 10);
  return h('span', { class: 'export-buttons' },
    h('button', { type: 'button', 'data-testid': 'export-markdown',
      onclick: async () => {
        const cards = await chosen();
        await whenLoaded(exporters, (m) => m.download(`cards-${stamp()}.md`, m.cardsToMarkdown(cards), 'text/markdown'));
      } }, 'Download Markdown'),
    h('button', { type: 'button', 'data-testid': 'export-json',
      onclick: async () => {
        const cards = await chosen();
        await whenLoaded(exporters, (m) => m.download(`cards-${stamp()}.json`, m.cardsToJson(cards, uid), 'application/json'));
      } }, 'Download JSON'));
}
