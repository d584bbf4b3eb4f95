import { describe, expect, it } from 'vitest';
import stallTable from '../../../common/message_stall_cases.json';
import {
  AUTO_RETRY_MAX_ATTEMPTS, answerInProgress, canRetry, isStalled, cutOffNotice, droppedTurnsNotice, messagePhase, msUntilStall,
  failureNotice, providerWaitNotice, shouldAutoRetry, type Status,
} from './messagestate';

const now = Date.parse('2026-01-01T12:00:00Z');
const future = new Date(now + 30_000);
const past = new Date(now - 1);

describe('messagePhase', () => {
  it('treats a streaming message with a lapsed lease as stalled', () => {
    expect(messagePhase({ role: 'assistant', status: 'streaming', lease_expires: past }, now)).toBe('stalled');
    expect(messagePhase({ role: 'assistant', status: 'streaming', lease_expires: future }, now)).toBe('streaming');
    // the server (conversation.is_stalled) retries a streaming answer that has no lease
    expect(messagePhase({ role: 'assistant', status: 'streaming' }, now)).toBe('stalled');
  });
  it('maps the other statuses', () => {
    expect(messagePhase({ role: 'assistant', status: 'ready' }, now)).toBe('waiting');
    expect(messagePhase({ role: 'assistant', status: 'failed', lease_expires: past }, now)).toBe('failed');
    expect(messagePhase({ role: 'assistant', status: 'complete', lease_expires: past }, now)).toBe('complete');
    expect(messagePhase({ role: 'user', status: 'ready' }, now)).toBe('complete');
  });
  it('says when a live message would stall', () => {
    expect(msUntilStall({ role: 'assistant', status: 'streaming', lease_expires: future }, now)).toBe(30_000);
    expect(msUntilStall({ role: 'assistant', status: 'complete', lease_expires: future }, now)).toBeNull();
    expect(msUntilStall({ role: 'assistant', status: 'streaming' }, now)).toBeNull();
  });
});

describe('the shared stall and retry rule (common/message_stall_cases.json)', () => {
  const leases: Record<string, Date | null> = { none: null, past, now: new Date(now), future };
  for (const c of stallTable.cases) {
    it(`${c.status} with lease ${c.lease}: stalled ${c.stalled}, retry ${c.retry}`, () => {
      const m = { role: 'assistant' as const, status: c.status as Status, lease_expires: leases[c.lease] };
      expect(isStalled(m, now)).toBe(c.stalled);
      expect(canRetry(messagePhase(m, now))).toBe(c.retry);
    });
  }
});

describe('composer and retry', () => {
  it('blocks the composer only while an answer is live', () => {
    const user = { role: 'user' as const, status: 'complete' as const };
    expect(answerInProgress([user, { role: 'assistant', status: 'streaming', lease_expires: future }], now)).toBe(true);
    expect(answerInProgress([user, { role: 'assistant', status: 'streaming', lease_expires: past }], now)).toBe(false);
    expect(answerInProgress([user, { role: 'assistant', status: 'complete' }], now)).toBe(false);
  });
  it('offers retry for failed and stalled answers', () => {
    expect(canRetry('failed')).toBe(true);
    expect(canRetry('stalled')).toBe(true);
    expect(canRetry('streaming')).toBe(false);
  });
  it('words the dropped-turns notice', () => {
    expect(droppedTurnsNotice(0)).toBeNull();
    expect(droppedTurnsNotice(undefined)).toBeNull();
    expect(droppedTurnsNotice(1)).toMatch(/oldest turn of/);
    expect(droppedTurnsNotice(3)).toMatch(/3 oldest turns/);
  });
});

describe('cutOffNotice', () => {
  it('explains an answer stopped at the time limit, and any other cut', () => {
    expect(cutOffNotice(null)).toBeNull();
    expect(cutOffNotice(undefined)).toBeNull();
    expect(cutOffNotice('time_limit')).toMatch(/time limit/);
    expect(cutOffNotice('something_new')).toMatch(/cut off/);
  });
});

describe('providerWaitNotice', () => {
  it('says why nothing has arrived yet and that the server asks again', () => {
    expect(providerWaitNotice(null)).toBeNull();
    expect(providerWaitNotice({ reason: 'Anthropic is overloaded (HTTP 529)', call: 2 }))
      .toBe('Anthropic is overloaded (HTTP 529) — asking again (call 2)…');
  });
});

describe('failureNotice', () => {
  it('shows the server\'s headline as it is, and still says the answer failed without one', () => {
    expect(failureNotice('OpenAI rejected the API key (HTTP 401)')).toBe('This answer failed: OpenAI rejected the API key (HTTP 401).');
    expect(failureNotice('Network error reaching Gemini')).toBe('This answer failed: Network error reaching Gemini.');
    expect(failureNotice(null)).toBe('This answer failed.');
    expect(failureNotice(undefined)).toBe('This answer failed.');
    expect(failureNotice('  ')).toBe('This answer failed.');
  });
});

describe('shouldAutoRetry', () => {
  it('asks a stalled answer again once per view, for its owner, while few runs have tried', () => {
    expect(shouldAutoRetry('stalled', 1, false, false)).toBe(true);
    expect(shouldAutoRetry('stalled', 1, false, true)).toBe(false); // already asked in this view
    expect(shouldAutoRetry('stalled', 1, true, false)).toBe(false); // a published reader cannot
    expect(shouldAutoRetry('stalled', AUTO_RETRY_MAX_ATTEMPTS, false, false)).toBe(false);
    expect(shouldAutoRetry('failed', 1, false, false)).toBe(false); // the model said why: the owner decides
    expect(shouldAutoRetry('streaming', 1, false, false)).toBe(false);
  });
});
