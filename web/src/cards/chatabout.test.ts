import { describe, expect, test } from 'vitest';
import { chatAboutRequest } from './chatabout';

describe('chat about this card', () => {
  test('pins the card and fills the rest from the reader\'s own cards', () => {
    const req = chatAboutRequest({ id: 'c1', title: 'Rebase onto main' });
    expect(req.pinnedCardIds).toEqual(['c1']);
    expect(req.query).toEqual({ scope: 'mine' });
    expect(req.cardIds).toEqual([]);
    expect(req.description).toContain('Rebase onto main');
  });
});
