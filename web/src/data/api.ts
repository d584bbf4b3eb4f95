// Typed wrappers for the backend's callables (names from common/collections.json).
import { httpsCallable } from 'firebase/functions';
import { timed } from '../app/timing';
import { functions } from './functions';
import { FUNCTIONS } from './names';

/** A model the caller may chat with (listModels). */
export interface ModelInfo {
  id: string;
  provider: string;
  label: string;
  context_window: number;
  max_output_tokens: number;
  tokenizer: string;
  offline: boolean;
  /** Offered on the caller's own API key (Settings). */
  own_key?: boolean;
  /** False: no known price (an OpenAI-compatible endpoint's model), so its cost shows as unknown. */
  priced?: boolean;
}

export interface ModelList {
  models: ModelInfo[];
  default: string;
}

/**
 * A collection described by a query (functions/cardchat/parsing/collection_query.py): the server resolves it.
 * scope: the caller's own ("mine", the server's default), others' cards shared with them minus the
 * sharers they hide ("shared"), both ("mine_and_shared"), or `owner`'s public cards ("owner").
 */
export interface CollectionQuery {
  scope?: 'mine' | 'shared' | 'mine_and_shared' | 'owner';
  owner?: string;
  tag?: string;
  visibility?: 'public' | 'private';
  text?: string;
}

/** Exactly one of card_ids (an explicit selection), query (a whole filtered collection) and collection_id (a saved one). */
export interface CreateChatRequest {
  card_ids?: string[];
  query?: CollectionQuery;
  collection_id?: string;
  initial_message: string;
  model?: string;
  /** A fraction of the context window (above 0, at most 1), not a percentage: the wire name stays, clients send it. */
  background_percentage?: number;
  collection?: { description: string; configuration?: Record<string, unknown> };
  /** Cards always in the background ("Chat about this card"), at most 50. */
  pinned_card_ids?: string[];
  /** The model may search the chat's cards while it answers (off unless asked). */
  look_further?: boolean;
}

function call<Req, Res>(name: string) {
  const fn = httpsCallable<Req, Res>(functions, name);
  return async (req: Req): Promise<Res> => (await timed(`call-${name}`, fn(req))).data;
}

let modelsPromise: Promise<ModelList> | null = null;

/** Cached for the session; a failure is not cached so the dialog can retry. */
export function listModels(): Promise<ModelList> {
  if (!modelsPromise) {
    modelsPromise = call<Record<string, never>, ModelList>(FUNCTIONS.listModels)({});
    modelsPromise.catch(() => (modelsPromise = null));
  }
  return modelsPromise;
}

export const createChat = call<CreateChatRequest, { chat_id: string }>(FUNCTIONS.createChat);
export const postMessage = call<{ chat_id: string; content: string }, { message_id: string }>(FUNCTIONS.postMessage);
export const retryMessage = call<{ message_id: string }, { message_id: string }>(FUNCTIONS.retryMessage);
export const deleteChat = call<{ chat_id: string }, Record<string, never>>(FUNCTIONS.deleteChat);
export const branchChat = call<{ chat_id: string; message_index: number; content: string }, { chat_id: string }>(
  FUNCTIONS.branchChat,
);

/** After the user's own keys change, the models they may pick change too. */
export function forgetModels(): void {
  modelsPromise = null;
}

// A chat of the caller's own carrying on one shared with them or published: over the cards its
// answers cite, and `query`'s (a scope of the caller's, as createChat's) when given.
export const continueChat = call<{ chat_id: string; model?: string; query?: CollectionQuery }, { chat_id: string }>(
  FUNCTIONS.continueChat,
);

/** A user's own API key as the server shows it: never the key, only its last 4 characters (and an endpoint's host). */
export interface ApiKeyInfo {
  provider: string;
  last4: string;
  updated: string | null;
  host?: string;
}
export const listApiKeys = call<Record<string, never>, { keys: ApiKeyInfo[] }>(FUNCTIONS.listApiKeys);
export const setApiKey = call<{ provider: string; key: string; base_url?: string }, ApiKeyInfo>(FUNCTIONS.setApiKey);
export const deleteApiKey = call<{ provider: string }, { keys: ApiKeyInfo[] }>(FUNCTIONS.deleteApiKey);
// Personal access tokens for the card MCP endpoint: the token is returned once, by create.
export const createAccessToken = call<{ label: string; scope?: 'read' | 'write' }, { token: string; id: string; scope: 'read' | 'write' }>(FUNCTIONS.createAccessToken);
export const revokeAccessToken = call<{ id: string }, Record<string, never>>(FUNCTIONS.revokeAccessToken);
/** One person a chat is shared with, as the owner's Share dialog shows them. */
export interface Viewer {
  uid: string;
  email: string;
  display_name: string;
}

export interface ShareChatRequest {
  chat_id: string;
  add?: string[];
  remove?: string[];
  /** Show the owner's name to visitors of the published link (off by default). */
  show_author?: boolean;
}

export const shareChat = call<ShareChatRequest, { viewers: Viewer[]; show_author: boolean }>(FUNCTIONS.shareChat);
/** A person a chat is shared with stops reading it (their chat_viewers doc goes). */
export const leaveChat = call<{ chat_id: string }, Record<string, never>>(FUNCTIONS.leaveChat);
export const rateAnswer = call<
  { message_id: string; rating: 'up' | 'down' | null; comment?: string }, Record<string, never>
>(FUNCTIONS.rateAnswer);

/** One card of a searchCards answer: never one the caller may not read. */
export interface SearchHit {
  id: string;
  title: string;
  snippet: string;
  tags: string[];
  visibility: 'public' | 'private';
  owner: string;
  score: number;
}
export interface SearchRequest extends Omit<CollectionQuery, 'text'> {
  text: string;
  limit?: number;
}
/** `considered`: the cards ranked; `matching`: those holding a word of the text (what a chat over it takes). */
export const searchCards = call<SearchRequest, { cards: SearchHit[]; considered: number; matching: number }>(
  FUNCTIONS.searchCards,
);
/** relatedCards: the cards nearest to one the caller reads, within their own cards unless a scope says otherwise. */
export const relatedCards = call<{ card_id: string; limit?: number } & Omit<CollectionQuery, 'text'>, { cards: SearchHit[] }>(
  FUNCTIONS.relatedCards,
);
/** A pair of findOverlaps: cards `a` and `b` (ids), the same text or nearly, or possibly saying different things. */
export interface OverlapPair {
  a: string;
  b: string;
  kind: 'duplicate' | 'may_conflict';
  reason: string;
}
/** findOverlaps: the pairs of a collection (a query, or a saved collection's id) that overlap; the caller's own cards by default. */
export const findOverlaps = call<{ query?: CollectionQuery; collection_id?: string; limit?: number }, { pairs: OverlapPair[] }>(
  FUNCTIONS.findOverlaps,
);
/** suggestFollowups: up to three questions after a complete answer, for the chat's owner only. */
export const suggestFollowups = call<{ message_id: string }, { questions: string[] }>(FUNCTIONS.suggestFollowups);
// A card's viewers by email: uids for addresses, and the owner's card's uids named back
// (only those the caller once found by email; others come back with an empty email).
export const resolveViewers = call<{ emails?: string[]; card_id?: string }, { viewers: Viewer[]; unknown: string[] }>(
  FUNCTIONS.resolveViewers,
);

/** Deletes the caller's data and account (the server deletes only the caller's own). */
export const deleteAccount = call<Record<string, never>, Record<string, never>>(FUNCTIONS.deleteAccount);

/** One hit of searchChats: a title or a message of a chat the caller owns or was shared. */
export interface ChatSearchResult {
  chat_id: string;
  title: string;
  /** The message to open the chat at; null when the title matched. */
  message_index: number | null;
  role: 'user' | 'assistant' | 'title';
  passage: string;
  /** [start, end) of each match in `passage`. */
  highlights: Array<[number, number]>;
  shared: boolean;
}
/** The owner's pin or exclusion of a card in a chat (chat/pins.py): false undoes it. */
export const pinCard = call<{ chat_id: string; card_id: string; pinned: boolean }, { pinned: boolean; excluded: boolean }>(
  FUNCTIONS.pinCard);
export const excludeCard = call<{ chat_id: string; card_id: string; excluded: boolean }, { pinned: boolean; excluded: boolean }>(
  FUNCTIONS.excludeCard);
export const searchChats = call<{ text: string }, { results: ChatSearchResult[] }>(FUNCTIONS.searchChats);

/** A claim of a draft (checkDraft): `supported` (a card says it), `conflicting` (a card says otherwise), `unsupported`. */
export type DraftVerdict = 'supported' | 'conflicting' | 'unsupported';
export interface DraftClaim {
  text: string;
  verdict: DraftVerdict;
  /** The cards that decided, each with the passage that says it, says otherwise, or comes nearest. */
  cards: Array<{ id: string; title: string; passage: string }>;
}
export interface CheckDraftRequest {
  text: string;
  /** Whose cards: the caller's own when absent. */
  query?: Omit<CollectionQuery, 'text'>;
}
export const checkDraft = call<CheckDraftRequest, { claims: DraftClaim[] }>(FUNCTIONS.checkDraft);
