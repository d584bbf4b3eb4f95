// Export: a selection of cards as one Markdown document (the "curated
// export" to paste into a model) or as JSON that the importers read back,
// and a chat's transcript as Markdown with its citations resolved to card
// titles. Pure functions; the views download what they return.
import { citedCardId, citedNumbers } from '../chat/citations';
import type { CardDoc } from '../data/shapes';

/** One document, the cards in the order given (the displayed order): title, tags, body each. */
export function cardsToMarkdown(cards: readonly CardDoc[]): string {
  return cards.map((c) => {
    const tags = c.tags.length ? `Tags: ${c.tags.join(', ')}\n\n` : '';
    return `## ${c.title}\n\n${tags}${c.body.trim()}\n`;
  }).join('\n---\n\n');
}

/**
 * {"cards": [...]}: what the browser importer and `python -m cardchat import`
 * read. No owner (the importer's owner owns what it imports); viewers only of
 * the exporter's own cards (someone else's sharing is not theirs to pass on).
 * No `derived_from`: it names one of the exporter's chats, which a file's
 * reader cannot open, and the importers write only a card's content.
 */
export function cardsToJson(cards: readonly CardDoc[], uid: string): string {
  return `${JSON.stringify({
    cards: cards.map((c) => ({
      id: c.id,
      title: c.title,
      body: c.body,
      tags: c.tags,
      visibility: c.owner === uid ? c.visibility : 'private',
      viewers: c.owner === uid ? c.viewers : [],
    })),
  }, null, 2)}\n`;
}

export interface TranscriptMessage { role: 'user' | 'assistant'; content: string; model: string | null }

/**
 * The chat as Markdown. Each answer is followed by the titles of the cards it
 * cites ([n] → card_ids[n-1] → title; a withdrawn or unreadable card says
 * so). `contextCards`, for the owner only, lists every card in the chat's
 * background in citation order.
 */
export function transcriptToMarkdown(
  title: string,
  messages: readonly TranscriptMessage[],
  cardIds: readonly string[],
  titles: ReadonlyMap<string, string>,
  contextCards: boolean,
): string {
  const name = (n: number) => {
    const id = citedCardId(n, cardIds);
    return id ? titles.get(id) ?? '(a card you cannot read)' : '(no longer in this chat)';
  };
  const parts = [`# ${title || 'Chat'}\n`];
  for (const m of messages) {
    parts.push(`**${m.role === 'user' ? 'You' : `Answer${m.model ? ` (${m.model})` : ''}`}:**\n\n${m.content.trim()}\n`);
    const cited = m.role === 'assistant' ? citedNumbers(m.content) : [];
    if (cited.length) parts.push(`Sources:\n\n${cited.map((n) => `- [${n}] ${name(n)}`).join('\n')}\n`);
  }
  if (contextCards && cardIds.length) {
    parts.push(`## Cards in this chat's context\n\n${cardIds.map((_, i) => `${i + 1}. ${name(i + 1)}`).join('\n')}\n`);
  }
  return parts.join('\n');
}

/** Saves `text` as a file through a temporary link. */
export function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
