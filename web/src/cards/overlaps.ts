// What the Review cards page does with a pair of findOverlaps, without the page: the words for
// its kind, the merged card offered to the editor, and a card's tags once marked outdated (the
// tag the server leaves out of default chats, searches and MCP results: common/collections.json).
import { CARD_LIMITS } from '../generated/cardlimits';
import type { OverlapPair } from '../data/api';
import type { CardDoc } from '../data/shapes';
import type { CardFields } from './cardvalidity';

export const OUTDATED_TAG = CARD_LIMITS.outdated_tag;

export function kindLabel(kind: OverlapPair['kind']): string {
  return kind === 'duplicate' ? 'Near-duplicate' : 'May conflict';
}

/** The tags of a card marked outdated: its own, and the tag once. */
export function withOutdated(tags: readonly string[]): string[] {
  return tags.includes(OUTDATED_TAG) ? [...tags] : [...tags, OUTDATED_TAG];
}

export function isOutdated(card: Pick<CardDoc, 'tags'>): boolean {
  return card.tags.includes(OUTDATED_TAG);
}

/**
 * One card from both, for the editor: the first's title, both texts (the second under a rule, left
 * out when it is the first's word for word), the tags of both but outdated, the first's visibility
 * and viewers (a merge never shares more than the first card did).
 */
export function mergedDraft(a: CardDoc, b: CardDoc): CardFields {
  const same = a.body.trim() === b.body.trim();
  const tags = [...new Set([...a.tags, ...b.tags])].filter((t) => t !== OUTDATED_TAG).slice(0, CARD_LIMITS.tags_max);
  return {
    title: a.title,
    body: same ? a.body : `${a.body.trimEnd()}\n\n---\n\n${b.title && b.title !== a.title ? `**${b.title}**\n\n` : ''}${b.body.trim()}\n`,
    visibility: a.visibility,
    viewers: [...a.viewers],
    tags,
  };
}

/** The fields of `card` as the editor writes them back, marked outdated. */
export function outdatedFields(card: CardDoc): CardFields {
  return { title: card.title, body: card.body, visibility: card.visibility, viewers: [...card.viewers], tags: withOutdated(card.tags) };
}
