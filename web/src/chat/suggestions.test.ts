import { describe, expect, it } from 'vitest';
import { followupTarget } from './suggestions';

const msg = (id: string, message_index: number, role: 'user' | 'assistant', status = 'complete') =>
  ({ id, message_index, role, status: status as 'complete' });

describe('the answer follow-ups are suggested after', () => {
  it('is the last message, once it is a complete answer', () => {
    expect(followupTarget([msg('q0', 0, 'user'), msg('a1', 1, 'assistant')])).toBe('a1');
    expect(followupTarget([msg('a1', 1, 'assistant'), msg('q0', 0, 'user')])).toBe('a1'); // by index, not arrival
    expect(followupTarget([msg('q0', 0, 'user'), msg('a1', 1, 'assistant', 'streaming')])).toBeNull();
    expect(followupTarget([msg('q0', 0, 'user'), msg('a1', 1, 'assistant', 'failed')])).toBeNull();
    expect(followupTarget([msg('q0', 0, 'user'), msg('a1', 1, 'assistant'), msg('q2', 2, 'user')])).toBeNull();
    expect(followupTarget([])).toBeNull();
  });
});
