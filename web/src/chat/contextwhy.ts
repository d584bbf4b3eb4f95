// The owner's "why": what a chat's hidden context holds and how it got there
// (chat/turn_context.py on the server). Built only from chat_private, which
// the rules give to the chat's owner alone: visitors and viewers never see it.
import { cardHref } from './citations';
import type { ChatPrivateDoc, ContextTurnDoc } from '../data/shapes';

const fmt = new Intl.NumberFormat('en-US');
const plural = (n: number, one: string, many = `${one}s`) => `${fmt.format(n)} ${n === 1 ? one : many}`;

/** "33 cards considered · 14 in the context · 19 cut by the budget", or '' for a chat made before these counts. */
export function contextSummary(p: ChatPrivateDoc): string {
  if (!p.cards_considered) return '';
  return [
    `${plural(p.cards_considered, 'card')} considered`,
    `${fmt.format(p.cards_packed)} in the context`,
    `${fmt.format(p.cards_cut)} cut by the budget`,
  ].join(' · ');
}

export interface WhyCard { label: string; href: string; title: string; cardId: string }
export interface WhyTurn { heading: string; cards: WhyCard[]; note: string }

/** One entry per follow-up: which cards its ranking added, each linking to the card. */
export function contextTurns(p: ChatPrivateDoc): WhyTurn[] {
  return p.context_turns.map((t: ContextTurnDoc) => {
    const question = Math.floor(t.message_index / 2) + 1;
    const notes = [`${plural(t.considered, 'card')} ranked`];
    if (t.cut) notes.push(`${fmt.format(t.cut)} more cut by the turn's budget`);
    if (t.dropped.length) notes.push(`${plural(t.dropped.length, 'earlier addition')} dropped for room`);
    return {
      heading: t.added.length ? `Question ${question} added` : `Question ${question} added no card`,
      cards: t.added.map((a) => ({
        label: `[${a.n}]`,
        cardId: a.card,
        href: cardHref(a.card),
        title: (a.searched ? 'found by the model\'s search, ' : '') + `rank ${fmt.format(a.rank)}`
          + (a.score === null ? ', not embedded yet' : `, similarity ${a.score.toFixed(2)}`),
      })),
      note: notes.join(' · '),
    };
  });
}
