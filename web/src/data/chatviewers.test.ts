import { describe, expect, it } from 'vitest';
import { newestFirst, viewerDocId } from './chatviewers';
import type { ChatDoc } from './shapes';

const chat = (id: string, at: number | null): ChatDoc => ({
  id, owner: 'u1', title: id, model: 'm', created: null, last_updated: at === null ? null : new Date(at),
  published: false, look_further: false, public_citations: {}, message_count: 2,
});

describe('chats shared with me', () => {
  it('lists the loaded ones newest first, leaving out those not loaded or no longer readable', () => {
    expect(newestFirst([chat('a', 1), null, chat('b', 3), chat('c', null)]).map((c) => c.id)).toEqual(['b', 'a', 'c']);
  });
  it("looks up a viewer's doc by the id shareChat gives it", () => {
    expect(viewerDocId('c0ffee', 'u2')).toBe('c0ffee_u2');
  });
});
