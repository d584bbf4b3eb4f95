// One definition of a valid card, the SPA's side: the limits come from
// common/collections.json (generated/cardlimits.ts), the same the CLI importer
// (functions/cardchat/parsing/card_validity.py) and firestore.rules hold; both
// validators are tested on common/card_validity_cases.json.
import { CARD_LIMITS } from '../generated/cardlimits';

export type Visibility = (typeof CARD_LIMITS.visibilities)[number];

/** The fields of a card its owner writes (owner and timestamps are set by the writer). */
export interface CardFields {
  title: string;
  body: string;
  visibility: Visibility;
  viewers: string[];
  tags: string[];
}

export interface Problem { field: string; why: string }

const utf8 = new TextEncoder();

function isNonBlank(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '';
}

function listProblem(name: string, value: unknown, maxItems: number, maxChars: number): Problem | null {
  if (!Array.isArray(value) || !value.every((v) => isNonBlank(v) && !v.includes('\n'))) {
    return { field: name, why: 'must be a list of non-empty strings without line breaks' };
  }
  if (value.length > maxItems) return { field: name, why: `has more than ${maxItems} entries` };
  if (value.some((v: string) => v.length > maxChars)) return { field: name, why: `has an entry longer than ${maxChars} characters` };
  return null;
}

/** Every invalid field of `card`, each with why; empty when the card may be written. */
export function cardProblems(card: Record<string, unknown>): Problem[] {
  const out: Problem[] = [];
  const { title, body, visibility, viewers } = card;
  if (!isNonBlank(title)) out.push({ field: 'title', why: 'is missing or empty' });
  else if (title.length > CARD_LIMITS.title_max_chars) {
    out.push({ field: 'title', why: `is longer than ${CARD_LIMITS.title_max_chars} characters` });
  }
  if (!isNonBlank(body)) out.push({ field: 'body', why: 'is missing or empty' });
  else if (utf8.encode(body).length > CARD_LIMITS.body_max_bytes) {
    out.push({ field: 'body', why: `is larger than ${CARD_LIMITS.body_max_bytes.toLocaleString('en')} bytes` });
  }
  if (!(CARD_LIMITS.visibilities as readonly unknown[]).includes(visibility)) {
    out.push({ field: 'visibility', why: `must be one of ${CARD_LIMITS.visibilities.join(', ')}` });
  }
  const tags = listProblem('tags', card.tags, CARD_LIMITS.tags_max, CARD_LIMITS.tag_max_chars);
  if (tags) out.push(tags);
  const v = listProblem('viewers', viewers, CARD_LIMITS.viewers_max, CARD_LIMITS.viewer_max_chars);
  if (v) out.push(v);
  else if ((viewers as string[]).length && visibility !== CARD_LIMITS.viewers_visibility) {
    out.push({ field: 'viewers', why: `may name people only on a ${CARD_LIMITS.viewers_visibility} card` });
  }
  return out;
}
