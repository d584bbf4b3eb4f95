// Typed wrappers for the backend's callables (names from common/collections.json).
import { httpsCallable } from 'firebase/functions';
import { functions } from './firebase';
import { FUNCTIONS } from './names';
import type { ModelInfo } from './budget';

export interface ModelList {
  models: ModelInfo[];
  default: string;
}

export interface CreateChatRequest {
  card_ids: string[];
  initial_message: string;
  model?: string;
  background_percentage?: number;
  collection?: { description: string; configuration?: Record<string, unknown> };
}

function call<Req, Res>(name: string) {
  const fn = httpsCallable<Req, Res>(functions, name);
  return async (req: Req): Promise<Res> => (await fn(req)).data;
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
export const rateAnswer = call<
  { message_id: string; rating: 'up' | 'down' | null; comment?: string }, Record<string, never>
>(FUNCTIONS.rateAnswer);
