// Which other people's cards a user chose (card_sources/{uid}): the owners
// whose public cards they follow, each optionally narrowed to one tag, the
// people whose cards shared with them they accepted, and those they stopped.
// Nothing of anyone else's enters the Cards page or a chat but through these
// and an explicit id list: sharing a card with someone asks nothing of them,
// so a sharer is pending until the reader accepts them.
// The document's shape and limits are firestore.rules' validCardSources();
// both are checked on common/card_sources_cases.json.
import shared from '../../../common/collections.json';
import type { CardSources, FollowedSource } from '../data/shapes';

export const SOURCE_LIMITS = shared.card_source_limits;

export const NO_SOURCES: CardSources = { following: [], hidden_sharers: [], accepted_sharers: [] };

export function sameSource(a: FollowedSource, b: FollowedSource): boolean {
  return a.owner === b.owner && (a.tag ?? null) === (b.tag ?? null);
}

export function isFollowed(s: CardSources, src: FollowedSource): boolean {
  return s.following.some((f) => sameSource(f, src));
}

/** `s` following `src` too; throws (a message for the reader) past the limit. */
export function follow(s: CardSources, src: FollowedSource): CardSources {
  if (isFollowed(s, src)) return s;
  if (s.following.length >= SOURCE_LIMITS.following_max) {
    throw new Error(`You follow ${SOURCE_LIMITS.following_max} sources already: unfollow one first.`);
  }
  const entry: FollowedSource = src.tag ? { owner: src.owner, tag: src.tag } : { owner: src.owner };
  return { ...s, following: [...s.following, entry] };
}

export function unfollow(s: CardSources, src: FollowedSource): CardSources {
  return { ...s, following: s.following.filter((f) => !sameSource(f, src)) };
}

/** `s` taking the cards `sharer` shares with the reader into "Shared with me"; throws past the limit. */
export function acceptSharer(s: CardSources, sharer: string): CardSources {
  if (s.accepted_sharers.includes(sharer)) return s;
  if (s.accepted_sharers.length >= SOURCE_LIMITS.accepted_sharers_max) {
    throw new Error(`You accepted ${SOURCE_LIMITS.accepted_sharers_max} people already: stop one first.`);
  }
  return { ...s, accepted_sharers: [...s.accepted_sharers, sharer], hidden_sharers: s.hidden_sharers.filter((h) => h !== sharer) };
}

/** `s` stopping `sharer`: no longer accepted, nor shown as pending again; throws past the limit. */
export function hideSharer(s: CardSources, sharer: string): CardSources {
  const accepted = s.accepted_sharers.filter((a) => a !== sharer);
  if (s.hidden_sharers.includes(sharer)) return { ...s, accepted_sharers: accepted };
  if (s.hidden_sharers.length >= SOURCE_LIMITS.hidden_sharers_max) {
    throw new Error(`You stopped ${SOURCE_LIMITS.hidden_sharers_max} people already: undo one first.`);
  }
  return { ...s, accepted_sharers: accepted, hidden_sharers: [...s.hidden_sharers, sharer] };
}

/** `s` no longer stopping `sharer`: pending again, not accepted. */
export function showSharer(s: CardSources, sharer: string): CardSources {
  return { ...s, hidden_sharers: s.hidden_sharers.filter((h) => h !== sharer) };
}

/**
 * The name shown for a card's owner. Cards carry no author name and a user's
 * profile is theirs alone to read, so the page names an owner by their uid.
 */
export function ownerLabel(uid: string): string {
  return uid;
}

/** "bob's public cards (tag: git)". */
export function sourceLabel(src: FollowedSource): string {
  return `${ownerLabel(src.owner)}’s public cards${src.tag ? ` (tag: ${src.tag})` : ''}`;
}

function validText(v: unknown, max: number): boolean {
  return typeof v === 'string' && v.length >= 1 && [...v].length <= max && !v.includes('\n');
}

function validFollow(e: unknown): boolean {
  if (!e || typeof e !== 'object' || Array.isArray(e)) return false;
  const m = e as Record<string, unknown>;
  return Object.keys(m).every((k) => k === 'owner' || k === 'tag')
    && validText(m.owner, SOURCE_LIMITS.uid_max_chars)
    && (!('tag' in m) || validText(m.tag, SOURCE_LIMITS.tag_max_chars));
}

const FIELDS = ['owner', 'following', 'hidden_sharers', 'accepted_sharers'] as const;

/**
 * The first field of `d` the rules would refuse for `uid` (`updated` aside,
 * which the write adds), or null: checked before a write so that the reader
 * hears what is wrong rather than "permission denied".
 */
export function sourcesProblem(d: Record<string, unknown>, uid: string): string | null {
  const extra = Object.keys(d).find((k) => !(FIELDS as readonly string[]).includes(k));
  if (extra !== undefined) return extra;
  if (d.owner !== uid) return 'owner';
  const f = d.following;
  if (!Array.isArray(f) || f.length > SOURCE_LIMITS.following_max || !f.every(validFollow)) return 'following';
  const hs = d.hidden_sharers;
  if (!Array.isArray(hs) || hs.length > SOURCE_LIMITS.hidden_sharers_max
    || !hs.every((x) => validText(x, SOURCE_LIMITS.uid_max_chars))) return 'hidden_sharers';
  const as = d.accepted_sharers;
  if (!Array.isArray(as) || as.length > SOURCE_LIMITS.accepted_sharers_max
    || !as.every((x) => validText(x, SOURCE_LIMITS.uid_max_chars))
    || as.some((x) => hs.includes(x))) return 'accepted_sharers';
  return null;
}

/** A stored document as the page uses it; what does not fit the shape is left out. */
export function parseSources(d: Record<string, unknown> | undefined): CardSources {
  const following = Array.isArray(d?.following) ? d.following.filter(validFollow) as FollowedSource[] : [];
  const uids = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const hidden = uids(d?.hidden_sharers);
  return { following, hidden_sharers: hidden, accepted_sharers: uids(d?.accepted_sharers).filter((a) => !hidden.includes(a)) };
}
