// "Chat about this card", on a card's page: a chat whose hidden background pins this card
// (createChat's pinned_card_ids: always in the background, whatever the ranking) and fills the rest
// from the reader's default collection, their own cards. Only for a signed-in reader, who may read
// the card (the page shows it); the server checks that again and drops a pin it may not use.
import { h } from '../app/dom';
import { openStartChat } from '../chat/startchat';
import { session } from '../data/session';
import type { CardDoc } from '../data/shapes';

/** The request the start-chat dialog sends for a chat about `card`. */
export function chatAboutRequest(card: Pick<CardDoc, 'id' | 'title'>) {
  return {
    cardIds: [],
    query: { scope: 'mine' as const },
    pinnedCardIds: [card.id],
    heading: 'Chat about this card',
    description: `About “${card.title || '(untitled)'}”, with the rest of your cards`,
    configuration: {},
  };
}

export function chatAboutButton(card: CardDoc): HTMLElement | null {
  if (!session().user) return null;
  return h('p', { class: 'chat-about' }, h('button', {
    type: 'button', 'data-testid': 'chat-about-card', onclick: () => openStartChat(chatAboutRequest(card)),
  }, 'Chat about this card'));
}
