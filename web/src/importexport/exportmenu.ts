// "Download Markdown" / "Download JSON" of the cards a view has chosen (the
// selection, else every card of the view, read on this request), in the order
// shown. exportcards.ts builds the text.
import { h } from '../app/dom';
import { cardsToJson, cardsToMarkdown, download } from './exportcards';
import type { CardDoc } from '../data/shapes';

export function exportButtons(chosen: () => Promise<CardDoc[]>, uid: string): HTMLElement {
  const stamp = () => new Date().toISOString().slice(0, 10);
  return h('span', { class: 'export-buttons' },
    h('button', { type: 'button', 'data-testid': 'export-markdown',
      onclick: async () => download(`cards-${stamp()}.md`, cardsToMarkdown(await chosen()), 'text/markdown') }, 'Download Markdown'),
    h('button', { type: 'button', 'data-testid': 'export-json',
      onclick: async () => download(`cards-${stamp()}.json`, cardsToJson(await chosen(), uid), 'application/json') }, 'Download JSON'));
}
