// The stored documents as the SPA reads them: one definition of each shape,
// and of how a snapshot becomes it (a missing or malformed field gets a safe
// default, so a view never meets undefined). The server's side of the shapes is
// functions/cardchat/schema; firestore.rules decides who reads which.
import type { DocumentData, DocumentSnapshot } from 'firebase/firestore';
import { parseCoverage, type Coverage } from '../chat/coverage';
import type { Status } from '../generated/messagestatus';
import type { CollectionQuery } from './api';

/** cards/{id}: one card, as every reader the rules admit sees it. */
export interface CardDoc {
  id: string;
  title: string;
  body: string;
  owner: string;
  visibility: 'public' | 'private';
  viewers: string[];
  tags: string[];
  updated: number; // ms since epoch
  /** The answer the owner saved this card from ("Save as card"); null for any other card. Kept on every edit. */
  derived_from: DerivedFrom | null;
}

/** A chat's message, by ids: cards.derived_from (firestore.rules validDerivedFrom). */
export interface DerivedFrom {
  chat_id: string;
  message_id: string;
}

/** chats/{id}: what every reader of the chat may see. */
export interface ChatDoc {
  id: string;
  owner: string;
  title: string;
  model: string;
  created: Date | null;
  last_updated: Date | null;
  published: boolean;
  /** Citation number → id, for public cards only: the links a visitor gets. */
  public_citations: Record<string, string>;
  message_count: number;
}

/** chat_private/{id}: the owner's data about a chat; the rules give it to no one else. */
export interface ChatPrivateDoc {
  background_length: number;
  background_tokens: number;
  /** Citation order: [n] is card_ids[n-1]; "" for a card withdrawn since (access lost). */
  card_ids: string[];
  card_count_requested: number;
  cards_unranked: number;
  collection: { description: string; configuration: Record<string, unknown> };
  /** Set on a branch: the chat and question it re-asks. */
  branched_from: { chat: string; message_index: number } | null;
  /** Set on a chat continued from one shared with its owner (continueChat). */
  continued_from: { chat: string; messages: number } | null;
  /** What the context holds (the owner's "why"): cards ranked, in the context now, left out by the first budget. */
  cards_considered: number;
  cards_packed: number;
  cards_cut: number;
  /** Per follow-up: the cards its ranking added (chat/turn_context.py). */
  context_turns: ContextTurnDoc[];
  /** How many cards of other people the context has held (a count, never which): the publish control says so. */
  cards_by_others: number;
  /** A chat made from a saved collection: its id; from the Cards page's filter: that query (else null). */
  collection_id: string | null;
  collection_query: CollectionQuery | null;
  /** The owner's choices (chat/pins.py): cards always in the background, and cards never in it again. */
  pinned_cards: string[];
  excluded_cards: string[];
  /** How many of its cards were edited since the chat was made, and re-packed (chat/edited_cards.py): a count. */
  cards_changed: number;
}

export interface ContextTurnDoc {
  message_index: number;
  considered: number;
  /** score: cosine similarity to the question, null for a card not embedded yet. */
  added: { card: string; n: number; rank: number; score: number | null }[];
  cut: number;
  dropped: number[];
}

export interface MessageDoc {
  id: string;
  chat: string;
  message_index: number;
  role: 'user' | 'assistant';
  content: string;
  status: Status;
  timestamp: Date | null;
  model: string | null;
  lease_expires: Date | null;
  error: string | null;
  dropped_turns: number;
  /** Why a complete answer stops early ("time_limit"), or null. */
  cut_off: string | null;
  /** Set while the server waits to ask a busy model again. */
  provider_wait: ProviderWait | null;
  /** Runs that have claimed this answer so far. */
  attempts: number;
  /** A complete answer's output tokens, what every reader may see; null before it completes. */
  usage: { output_tokens: number } | null;
  timings: { ttft: number; total: number } | null;
  /** Claims in the answer with no citation, counted by the server. */
  uncited_claims: number | null;
  /** The numbers of the cards a complete answer cites (names no card: numbers only), set by the server. */
  sources: number[] | null;
  /** Whether the chat's cards cover a complete answer's question (server: generation/coverage.py); null before it completes. */
  coverage: Coverage | null;
}

/**
 * answer_usage/{message id}: what a complete answer's prompt counted and its cost, which grow with the
 * hidden background: the owner's alone (the details toggle), never on the message visitors read.
 */
export interface AnswerUsageDoc {
  message: string;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cost_usd: number;
}

export interface ProviderWait {
  reason: string;
  call: number;
}

/** access_tokens/{id}: one of the user's personal access tokens (never the token or its hash). */
export interface AccessTokenDoc {
  id: string;
  label: string;
  created: Date | null;
  last_used: Date | null;
}

export type Rating = 'up' | 'down';

/** answer_feedback/{message id}: the owner's rating of one answer. */
export interface FeedbackDoc {
  message: string;
  rating: Rating;
  comment: string;
}

/** usage_daily/{id}: one owner's answers and spending with one model on one day. */
export interface UsageDayDoc {
  day: string;
  model: string;
  answers: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

/** One owner's public cards, all of them or those carrying `tag`. */
export interface FollowedSource {
  owner: string;
  tag?: string;
}

/**
 * card_sources/{uid}: whose cards the user follows, whose shared cards they accepted and whom they stopped
 * (cards/cardsources.ts checks it). A person's shared cards join "Shared with me" only once accepted.
 */
export interface CardSources {
  following: FollowedSource[];
  hidden_sharers: string[];
  accepted_sharers: string[];
}

// --- snapshots to shapes ----------------------------------------------------

function toDate(v: unknown): Date | null {
  if (v && typeof (v as { toDate?: unknown }).toDate === 'function') return (v as { toDate(): Date }).toDate();
  return v instanceof Date ? v : null;
}

export function toCard(s: DocumentSnapshot<DocumentData>): CardDoc {
  const d = s.data() ?? {};
  return {
    id: s.id,
    title: String(d.title ?? ''),
    body: String(d.body ?? ''),
    owner: String(d.owner ?? ''),
    visibility: d.visibility === 'public' ? 'public' : 'private',
    viewers: Array.isArray(d.viewers) ? d.viewers : [],
    tags: Array.isArray(d.tags) ? d.tags : [],
    updated: toDate(d.updated)?.getTime() ?? 0,
    derived_from: toDerivedFrom(d.derived_from),
  };
}

function toDerivedFrom(v: unknown): DerivedFrom | null {
  const f = v as Partial<DerivedFrom> | null | undefined;
  return f && typeof f.chat_id === 'string' && typeof f.message_id === 'string'
    ? { chat_id: f.chat_id, message_id: f.message_id } : null;
}

export function toChat(s: DocumentSnapshot<DocumentData>): ChatDoc {
  const d = s.data() ?? {};
  const citations: Record<string, string> = {};
  for (const [n, id] of Object.entries(d.public_citations ?? {})) {
    if (typeof id === 'string') citations[n] = id;
  }
  return {
    id: s.id,
    owner: String(d.owner ?? ''),
    title: String(d.title ?? ''),
    model: String(d.model ?? ''),
    created: toDate(d.created),
    last_updated: toDate(d.last_updated),
    published: d.published === true,
    public_citations: citations,
    message_count: Number(d.message_count ?? 0),
  };
}

export function toChatPrivate(s: DocumentSnapshot<DocumentData>): ChatPrivateDoc {
  const d = s.data() ?? {};
  return {
    background_length: Number(d.background_length ?? 0),
    background_tokens: Number(d.background_tokens ?? 0),
    card_ids: Array.isArray(d.card_ids) ? d.card_ids.map((c: unknown) => (typeof c === 'string' ? c : '')) : [],
    card_count_requested: Number(d.card_count_requested ?? 0),
    cards_unranked: Number(d.cards_unranked ?? 0),
    collection: {
      description: String(d.collection?.description ?? ''),
      configuration: d.collection?.configuration ?? {},
    },
    branched_from: d.branched_from?.chat
      ? { chat: String(d.branched_from.chat), message_index: Number(d.branched_from.message_index ?? 0) }
      : null,
    continued_from: d.continued_from?.chat
      ? { chat: String(d.continued_from.chat), messages: Number(d.continued_from.messages ?? 0) }
      : null,
    cards_considered: Number(d.cards_considered ?? 0),
    cards_packed: Number(d.cards_packed ?? 0),
    cards_cut: Number(d.cards_cut ?? 0),
    context_turns: toContextTurns(d.context_turns),
    cards_by_others: Number(d.cards_by_others ?? 0),
    collection_id: typeof d.collection_id === 'string' ? d.collection_id : null,
    collection_query: d.collection_query && typeof d.collection_query === 'object' ? d.collection_query as CollectionQuery : null,
    pinned_cards: strings(d.pinned_cards),
    excluded_cards: strings(d.excluded_cards),
    cards_changed: Number(d.cards_changed ?? 0),
  };
}

export function toMessage(s: DocumentSnapshot<DocumentData>): MessageDoc {
  const d = s.data() ?? {};
  return {
    id: s.id,
    chat: String(d.chat ?? ''),
    message_index: Number(d.message_index ?? 0),
    role: d.role === 'user' ? 'user' : 'assistant',
    content: String(d.content ?? ''),
    status: (d.status ?? 'ready') as Status,
    timestamp: toDate(d.timestamp),
    model: d.model ?? null,
    lease_expires: toDate(d.lease_expires),
    error: d.error ? String(d.error) : null,
    dropped_turns: Number(d.dropped_turns ?? 0),
    cut_off: d.cut_off ? String(d.cut_off) : null,
    provider_wait: d.provider_wait?.reason
      ? { reason: String(d.provider_wait.reason), call: Number(d.provider_wait.call ?? 2) }
      : null,
    attempts: Number(d.attempts ?? 0),
    usage: d.usage ? { output_tokens: Number(d.usage.output_tokens ?? 0) } : null,
    timings: typeof d.timings?.total === 'number'
      ? { ttft: Number(d.timings.ttft ?? d.timings.total), total: Number(d.timings.total) } : null,
    uncited_claims: typeof d.uncited_claims === 'number' ? d.uncited_claims : null,
    sources: Array.isArray(d.sources) ? d.sources.filter((n: unknown): n is number => Number.isInteger(n)) : null,
    coverage: parseCoverage(d.coverage),
  };
}

function strings(raw: unknown): string[] {
  return Array.isArray(raw) ? raw.filter((c): c is string => typeof c === 'string') : [];
}

function toContextTurns(raw: unknown): ContextTurnDoc[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((t: Record<string, unknown>) => ({
    message_index: Number(t.message_index ?? 0),
    considered: Number(t.considered ?? 0),
    added: Array.isArray(t.added)
      ? t.added.map((a: Record<string, unknown>) => ({
        card: String(a.card ?? ''),
        n: Number(a.n ?? 0),
        rank: Number(a.rank ?? 0),
        score: typeof a.score === 'number' ? a.score : null,
      }))
      : [],
    cut: Number(t.cut ?? 0),
    dropped: Array.isArray(t.dropped) ? t.dropped.map(Number) : [],
  }));
}

export function toAccessToken(s: DocumentSnapshot<DocumentData>): AccessTokenDoc {
  return {
    id: s.id,
    label: String(s.get('label') ?? ''),
    created: toDate(s.get('created')),
    last_used: toDate(s.get('last_used')),
  };
}

export function toFeedback(s: DocumentSnapshot<DocumentData>): FeedbackDoc {
  const f = s.data() ?? {};
  return { message: s.id, rating: f.rating === 'up' ? 'up' : 'down', comment: String(f.comment ?? '') };
}

export function toAnswerUsage(s: DocumentSnapshot<DocumentData>): AnswerUsageDoc {
  const d = s.data() ?? {};
  const u = (d.usage ?? {}) as Record<string, unknown>;
  return {
    message: s.id,
    input_tokens: Number(u.input_tokens ?? 0),
    output_tokens: Number(u.output_tokens ?? 0),
    cached_input_tokens: Number(u.cached_input_tokens ?? 0),
    cost_usd: Number(d.cost_usd ?? 0),
  };
}

export function toUsageDay(s: DocumentSnapshot<DocumentData>): UsageDayDoc {
  const u = s.data() ?? {};
  return {
    day: String(u.day ?? ''), model: String(u.model ?? ''), answers: Number(u.answers ?? 0),
    input_tokens: Number(u.input_tokens ?? 0), output_tokens: Number(u.output_tokens ?? 0), cost_usd: Number(u.cost_usd ?? 0),
  };
}
