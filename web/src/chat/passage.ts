// Which passage of a cited card best matches the sentence that cites it
// (the citation preview): chosen in the browser from the card the
// reader may read, by the content words the two share.
import { sentences } from './claims';

const STOP = new Set(('the and for are but not you your with this that from have has had was were will would can could ' +
  'its into than then them they their there what when where which who why how all any each our out over also about ' +
  'only other some such very just more most been being does did doing').split(' '));

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 2 && !STOP.has(w));
}

/** Card Markdown as plain sentences: code fences, link targets and emphasis marks dropped. */
export function plainSentences(markdown: string): string[] {
  const text = markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|[-*+]|\d+[.)]|>)\s+/gm, '')
    .replace(/[*_`~]+/g, '');
  return text.split(/\n\s*\n/).flatMap((para) => {
    const flat = para.replace(/\s+/g, ' ').trim();
    return flat ? sentences(flat).map((s) => flat.slice(s.start, s.end)) : [];
  });
}

export interface Passage {
  before: string;
  match: string;
  after: string;
}

/** The card's sentence sharing most content words with `sentence` (its first one when none shares any), with a neighbour each side. */
export function bestPassage(cardBody: string, sentence: string, maxChars = 320): Passage {
  const parts = plainSentences(cardBody);
  if (!parts.length) return { before: '', match: '', after: '' };
  const wanted = new Set(words(sentence));
  let best = 0;
  let bestScore = 0;
  parts.forEach((p, i) => {
    const own = new Set(words(p));
    const shared = [...own].filter((w) => wanted.has(w)).length;
    const score = shared / Math.sqrt(own.size || 1);
    if (score > bestScore) [best, bestScore] = [i, score];
  });
  const clip = (s: string, keep: number, fromEnd: boolean) =>
    s.length <= keep ? s : fromEnd ? `…${s.slice(s.length - keep)}` : `${s.slice(0, keep)}…`;
  const match = clip(parts[best], maxChars, false);
  const room = Math.max(0, Math.floor((maxChars - match.length) / 2));
  return {
    before: best > 0 && room > 20 ? clip(parts[best - 1], room, true) : '',
    match,
    after: best + 1 < parts.length && room > 20 ? clip(parts[best + 1], room, false) : '',
  };
}
