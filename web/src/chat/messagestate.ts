// What a chat message means for the reader, from its stored fields.

import { LIVE_STATUSES, RETRYABLE_STATUSES, STALLED_WITHOUT_LEASE, type Status } from '../generated/messagestatus';

export type { Status };
export type Phase = 'waiting' | 'streaming' | 'stalled' | 'complete' | 'failed';

export interface MessageLike {
  role: 'user' | 'assistant';
  status: Status;
  lease_expires?: Date | null;
}

/**
 * The server's stall rule (common/collections.json, also read by
 * functions/cardchat/chat/turns.py is_stalled): a live answer whose worker
 * let its lease lapse, or that never had one, will not progress unless
 * someone retries it, and the server accepts that retry.
 */
export function isStalled(m: MessageLike, nowMs: number): boolean {
  if (m.role !== 'assistant' || !LIVE_STATUSES.includes(m.status)) return false;
  if (!m.lease_expires) return STALLED_WITHOUT_LEASE.includes(m.status);
  return m.lease_expires.getTime() <= nowMs;
}

export function messagePhase(m: MessageLike, nowMs: number): Phase {
  if (m.role === 'user' || m.status === 'complete') return 'complete';
  if (m.status === 'failed') return 'failed';
  if (isStalled(m, nowMs)) return 'stalled';
  return m.status === 'streaming' ? 'streaming' : 'waiting';
}

/** Milliseconds until a live message would count as stalled, or null if never. */
export function msUntilStall(m: MessageLike, nowMs: number): number | null {
  if (m.role !== 'assistant' || !LIVE_STATUSES.includes(m.status) || !m.lease_expires) return null;
  return Math.max(0, m.lease_expires.getTime() - nowMs);
}

/** The composer waits while an answer is still being produced. */
export function answerInProgress(messages: readonly MessageLike[], nowMs: number): boolean {
  return messages.some((m) => {
    const p = messagePhase(m, nowMs);
    return p === 'waiting' || p === 'streaming';
  });
}

/** Retry is offered exactly when the server's retryMessage accepts it: a retryable status, or stalled. */
export function canRetry(phase: Phase): boolean {
  return phase === 'stalled' || (RETRYABLE_STATUSES as readonly string[]).includes(phase);
}

/** Runs after which a stalled answer waits for the owner's Retry instead of being asked again on view. */
export const AUTO_RETRY_MAX_ATTEMPTS = 3;

/**
 * Opening a chat asks a stalled answer again by itself (its server went
 * quiet: nothing the owner could fix), once per view and only while few runs
 * have tried; a failed answer carries the model's reason and waits for Retry.
 */
export function shouldAutoRetry(phase: Phase, attempts: number, readOnly: boolean, alreadyAsked: boolean): boolean {
  return phase === 'stalled' && !readOnly && !alreadyAsked && attempts < AUTO_RETRY_MAX_ATTEMPTS;
}

export function droppedTurnsNotice(n: number | undefined): string | null {
  if (!n || n <= 0) return null;
  return n === 1
    ? 'The oldest turn of this conversation was left out to fit the model’s context window.'
    : `The ${n} oldest turns of this conversation were left out to fit the model’s context window.`;
}

/**
 * Why an answer failed. The server stores one of a fixed set of headlines
 * (functions/cardchat/providers/headlines.py: provider, kind, HTTP status, e.g.
 * "Anthropic is overloaded (HTTP 529)"), never the provider's own words, so
 * it is shown as it is, to the owner and to a published chat's visitors.
 */
export function failureNotice(error: string | null | undefined): string {
  const headline = (error ?? '').trim();
  return headline ? `This answer failed: ${headline}.` : 'This answer failed.';
}

/** Why an answer has not started yet while the server waits on a busy model (a fixed headline too). */
export function providerWaitNotice(wait: { reason: string; call: number } | null | undefined): string | null {
  if (!wait) return null;
  return `${wait.reason} — asking again (call ${wait.call})…`;
}

/** A complete answer the server stopped early; unknown reasons still get a notice. */
export function cutOffNotice(reason: string | null | undefined): string | null {
  if (!reason) return null;
  return reason === 'time_limit'
    ? 'This answer was cut off: it ran into the time limit of one answer. Ask to continue, or for a shorter answer.'
    : 'This answer was cut off before the model finished.';
}
