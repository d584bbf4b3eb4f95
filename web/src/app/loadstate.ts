// What a list says while it loads, fails or is empty: a failed or
// retrying query is never shown as emptiness. "You have no cards yet" is said
// only when the count from the server is 0; until the server has answered,
// the list is loading; after a failure, it says what failed and that it is
// trying again.
import { describeError, errorCode } from './errors';

export type ListNoun = 'cards' | 'chats' | 'messages';

export interface ListLoad {
  /** The last attempt failed (null: it did not, or none has finished yet). */
  error: unknown;
  /** Items in hand. */
  shown: number;
  /** Everything the list's query holds is in hand (a listener's answer from the server; a pager at its end). */
  complete: boolean;
  /** The reader narrowed the list (tag, words, scope): none in it then means "no match", not "none at all". */
  filtered: boolean;
  /** How many the reader has at all, unfiltered, by the server (a count query; a listener's size): null until it answers. */
  total: number | null;
}

export type ListView =
  | { kind: 'items' }
  | { kind: 'loading'; text: string }
  | { kind: 'failed'; text: string }
  | { kind: 'empty'; text: string };

const WHOSE: Record<ListNoun, string> = { cards: 'your cards', chats: 'your chats', messages: 'this chat’s messages' };
const NONE: Record<ListNoun, string> = {
  cards: 'You have no cards yet.',
  chats: 'No chats yet. Pick some cards and start one.',
  messages: 'This chat has no messages yet.',
};

/** "Couldn't load your cards — retrying (The server could not be reached…)". */
export function failureText(noun: ListNoun, error: unknown): string {
  return `Couldn’t load ${WHOSE[noun]} — retrying (${whatFailed(error)})`;
}

function whatFailed(error: unknown): string {
  const code = errorCode(error);
  const text = describeError(error, 'Reading them');
  return code && !text.includes(code) ? `${text} [${code}]` : text;
}

/**
 * What a list shows now. Items in hand are shown even while a later page
 * fails (the view says so beside them); "none" needs the server's word.
 */
export function listView(noun: ListNoun, s: ListLoad): ListView {
  if (s.shown > 0) return { kind: 'items' };
  if (s.error !== null && s.error !== undefined) return { kind: 'failed', text: failureText(noun, s.error) };
  if (!s.complete || s.total === null) return { kind: 'loading', text: `Loading ${noun}…` };
  if (s.total === 0) return { kind: 'empty', text: NONE[noun] };
  if (s.filtered) return { kind: 'empty', text: `No ${noun.slice(0, -1)} matches this filter.` };
  // The server counts some, yet the whole list came back empty (deleted meanwhile?): not "none" until a count says 0.
  return { kind: 'loading', text: `Loading ${noun}…` };
}
