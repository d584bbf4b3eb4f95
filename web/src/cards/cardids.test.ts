import { describe, expect, it } from 'vitest';
import cases from '../../../common/card_id_cases.json';
import { isOwnCardId, ownCardId } from './cardids';

describe('a card id in its owner\'s namespace', () => {
  it.each(cases.cases)('$uid owns $id: $own (the cases the rules are tested on)', ({ uid, id, own }) => {
    expect(isOwnCardId(uid, id)).toBe(own);
  });
  it('is what ownCardId makes', () => {
    expect(ownCardId('alice', 'notes-1')).toBe('alice_notes-1');
    expect(isOwnCardId('alice', ownCardId('alice', 'x'))).toBe(true);
  });
});
