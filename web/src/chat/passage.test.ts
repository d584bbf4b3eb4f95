import { describe, expect, it } from 'vitest';
import { bestPassage, plainSentences } from './passage';

const CARD = `# Tides

The moon's gravity pulls the oceans, raising two tidal bulges. The earth turns beneath them.

Spring tides come with the **new** and the full moon. Neap tides fall between the [quarter moons](https://example.com).

\`\`\`
tide --table
\`\`\``;

describe('best passage', () => {
  it('reads a card as plain sentences', () => {
    expect(plainSentences(CARD)).toEqual([
      'Tides',
      "The moon's gravity pulls the oceans, raising two tidal bulges.",
      'The earth turns beneath them.',
      'Spring tides come with the new and the full moon.',
      'Neap tides fall between the quarter moons.',
    ]);
  });
  it('picks the sentence sharing most content words, with its neighbours', () => {
    const p = bestPassage(CARD, 'Neap tides happen between the quarter moons [2].');
    expect(p.match).toBe('Neap tides fall between the quarter moons.');
    expect(p.before).toBe('Spring tides come with the new and the full moon.');
    expect(p.after).toBe('');
    expect(bestPassage(CARD, 'What pulls the oceans?').match).toContain('gravity pulls the oceans');
  });
  it('falls back to the first sentence and clips long text', () => {
    expect(bestPassage(CARD, 'Nothing in common here [1].').match).toBe('Tides');
    expect(bestPassage('word '.repeat(200), 'word', 50).match).toHaveLength(51);
    expect(bestPassage('', 'anything').match).toBe('');
  });
});
