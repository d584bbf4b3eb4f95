// "Save as card": an answer becomes the draft of a new card. Each [n] that
// names a card the owner can read becomes a link to that card's page (the
// href every citation has, citations.cardHref); an [n] that names nothing,
// or a card the owner can no longer read, stays plain text. Nothing is
// written here: the editor opens with the draft and writes only on Save.
import rule from '../../../common/claims.json';
import { cardHref, parseCitationNumbers, type CitationMap } from './citations';
import { CARD_LIMITS } from '../generated/cardlimits';
import type { DerivedFrom, MessageDoc } from '../data/shapes';
import type { CardDraft } from '../cards/carddraft';

const CITATIONS = new RegExp(rule.citation, 'g');

/** The ids of the cards `content` cites that `cites` names, each once. */
export function citedIds(content: string, cites: CitationMap): string[] {
  const ids = [...content.matchAll(CITATIONS)].flatMap((m) => parseCitationNumbers(m[0]).map((n) => cites.card(n)));
  return [...new Set(ids.filter((id): id is string => !!id))];
}

/**
 * `content` with its citations rewritten: "[1, 3]" → "[[1](/card/a), 3]" when
 * card a is readable (`readable`) and [3] names no readable card.
 */
export function linkCitations(content: string, cites: CitationMap, readable: ReadonlySet<string>): string {
  return content.replace(CITATIONS, (citation) => {
    const parts = parseCitationNumbers(citation).map((n) => {
      const id = cites.card(n);
      return id && readable.has(id) ? `[${n}](${cardHref(id)})` : String(n);
    });
    return parts.length ? `[${parts.join(', ')}]` : citation;
  });
}

/** A title from the question the answer answers, cut to the card limit. */
export function draftTitle(question: string): string {
  const line = question.replace(/\s+/g, ' ').trim() || 'Saved answer';
  const max = CARD_LIMITS.title_max_chars;
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** The new card's draft: private, no tags, no viewers; it remembers the answer it came from. */
export function answerDraft(
  question: string, content: string, cites: CitationMap, readable: ReadonlySet<string>, derivedFrom: DerivedFrom,
): CardDraft {
  return {
    fields: { title: draftTitle(question), body: linkCitations(content, cites, readable), visibility: 'private', viewers: [], tags: [] },
    derivedFrom,
  };
}

/** The question an answer answers: the nearest user message before it ('' for none). */
export function questionBefore(messages: readonly MessageDoc[], answerId: string): string {
  const at = messages.findIndex((m) => m.id === answerId);
  for (let i = at - 1; i >= 0; i--) if (messages[i].role === 'user') return messages[i].content;
  return '';
}
