// The stored documents as the SPA reads them: one definition of each shape
// (snapshots.ts turns a snapshot into it). The server's side of the shapes is
// functions/cardchat/schema; firestore.rules decides who reads which.
import type { Coverage } from '../chat/coverage';
import type { CitationCheck } from '../chat/citationchecks';
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
  /** The owner's switch: the model may search the chat's cards while it answers. */
  look_further: boolean;
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
  /** What the background holds (the owner's "why"): cards ranked, in the background now, left out by the first budget. */
  cards_considered: number;
  cards_packed: number;
  cards_cut: number;
  /** Per follow-up: the cards its ranking added (chat/turn_context.py). */
  context_turns: ContextTurnDoc[];
  /** How many cards of other people the background has held (a count, never which): the publish control says so. */
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
  /** searched: found by the model's search while it answered (look further), not ranked before it. */
  added: { card: string; n: number; rank: number; score: number | null; searched: boolean }[];
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
  /** Runs that have taken this answer so far. */
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
  /** The server's verdict per (claim, cited [n]) of a complete answer (chat/citationchecks.ts); null: none written. */
  citation_checks: CitationCheck[] | null;
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
  /** null: the model has no known price (unknown, never $0) */
  cost_usd: number | null;
  /** the token counts are the server's estimate: the provider sent none */
  estimated: boolean;
  /** how many times the model searched the chat's cards while it answered (never what for) */
  card_searches: number;
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
  /** read: search and read; write: also create and update the owner's cards. */
  scope: 'read' | 'write';
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
