// The owner's "Save as card" button under a complete answer (message.ts
// shows it to the chat's owner only). The draft is made in answercard.ts.
import { offerDraft } from '../cards/carddraft';
import { h } from '../app/dom';
import { router } from '../app/router';
import { loadCard } from './citepreview';
import { answerDraft, citedIds } from './answercard';
import type { CitationMap } from './citations';
import type { MessageDoc } from '../data/shapes';

/**
 * The owner's "Save as card" on a complete answer: reads the cited cards
 * (under the card rules: what the owner can read now), hands the draft to
 * the editor and opens it.
 */
export function saveAsCardButton(chatId: string, answer: () => MessageDoc, cites: () => CitationMap, question: () => string): HTMLButtonElement {
  const b = h('button', { type: 'button', class: 'small', 'data-testid': 'save-as-card', title: 'Save this answer as a card' }, 'Save as card');
  b.addEventListener('click', async () => {
    const msg = answer();
    const map = cites();
    b.disabled = true;
    const ids = citedIds(msg.content, map);
    const cards = await Promise.all(ids.map((id) => loadCard(id)));
    const readable = new Set(ids.filter((_, i) => cards[i] !== null));
    b.disabled = false;
    offerDraft(answerDraft(question(), msg.content, map, readable, { chat_id: chatId, message_id: msg.id }));
    router.navigate('/new');
  });
  return b;
}
