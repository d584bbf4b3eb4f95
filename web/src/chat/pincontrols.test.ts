import { describe, expect, test } from 'vitest';
import { choiceButtons } from './pincontrols';

describe('pin and exclude', () => {
  test('each button offers the undo of what the card is', () => {
    expect(choiceButtons({ pinned: false, excluded: false })).toEqual({ pin: 'Pin', exclude: 'Exclude', hint: '' });
    expect(choiceButtons({ pinned: true, excluded: false }))
      .toEqual({ pin: 'Unpin', exclude: 'Exclude', hint: 'pinned: always in the background' });
    expect(choiceButtons({ pinned: false, excluded: true }))
      .toEqual({ pin: 'Pin', exclude: 'Include again', hint: 'excluded: never in the background' });
  });
});
