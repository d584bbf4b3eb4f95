// What a browser import will write, decided before anything is written:
// each source card gets its id (derived per owner, so two users' readme.md
// never collide), its fields validated by the one definition of a valid card,
// and is compared with the owner's stored card of that id (looked up by id,
// never the whole collection, which may be huge) to create, update or skip it.
import { ownCardId } from '../cards/cardids';
import { codePointCompare } from '../data/cardpager';
import { cardProblems, type CardFields, type Visibility } from '../cards/cardvalidity';
import type { FileProblem, SourceCard } from './importparse';
import type { CardDoc } from '../data/shapes';

export interface PlannedCard {
  id: string;
  where: string;
  fields: CardFields;
  /** An update's stored card, as it was read: what the preview compares with (importdiff.ts). */
  before?: CardFields;
}

export interface ImportPlan {
  creates: PlannedCard[];
  updates: PlannedCard[];
  unchanged: PlannedCard[];
  problems: FileProblem[];
}

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').toLowerCase().slice(0, 60) || 'card';
}

/**
 * The id of the card `key` (a file's path, or a JSON card's id) imports into
 * for `owner`: readable, in the owner's namespace (cardids.ts), so the same
 * folder imported again finds its cards and another user's import never
 * lands on them.
 */
export async function derivedCardId(owner: string, key: string): Promise<string> {
  return ownCardId(owner, await legacyDerivedId(owner, key));
}

/** The id an import derived before namespaces: a card imported then is found, and updated, under it. */
export async function legacyDerivedId(owner: string, key: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${owner}\n${key}`));
  return `${slug(key)}-${hex(digest).slice(0, 16)}`;
}

/** Whether Firestore takes `key` as a document id (no slash, not . or .., not __reserved__, ≤ 1,500 bytes). */
export function isDocId(key: string): boolean {
  return key !== '' && !key.includes('/') && key !== '.' && key !== '..' && !/^__.*__$/.test(key)
    && new TextEncoder().encode(key).length <= 1500;
}

function sharedPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * `ids` in Firestore's order (UTF-8 bytes, which code points order alike), cut into ranges of at most
 * `most` to look up (cardwrites.ownCardsAmong reads the owner's cards
 * between a range's first and last id). A full range is cut before the id
 * sharing the shortest prefix with the one before it, the widest gap in id
 * space: a folder's ids then stay in one range, and the owner's other cards
 * between two folders' (an earlier import) fall in no range.
 */
export function idRanges(ids: readonly string[], most: number): string[][] {
  const sorted = [...new Set(ids)].sort(codePointCompare);
  const out: string[][] = [];
  for (let start = 0; start < sorted.length;) {
    const full = Math.min(start + most, sorted.length);
    let end = full;
    if (full < sorted.length) {
      let weakest = Infinity;
      for (let i = start + 1; i <= full; i++) {
        const shared = sharedPrefix(sorted[i - 1], sorted[i]);
        if (shared <= weakest) [weakest, end] = [shared, i];
      }
    }
    out.push(sorted.slice(start, end));
    start = end;
  }
  return out;
}

/** Of `ids`, the owner's stored cards, by id (the others: absent). */
export type OwnCardsAmong = (ids: string[]) => Promise<ReadonlyMap<string, CardDoc>>;

const DEFAULTS: CardFields = { title: '', body: '', visibility: 'private', viewers: [], tags: [] };

function storedFields(c: CardDoc): CardFields {
  return { title: c.title, body: c.body, visibility: c.visibility as Visibility, viewers: c.viewers, tags: c.tags };
}

/** The source's fields over the stored card's (a re-import keeps what the file does not say), else defaults. */
function merged(src: SourceCard, stored: CardDoc | undefined): Record<string, unknown> {
  const base: CardFields = stored ? storedFields(stored) : DEFAULTS;
  const out: Record<string, unknown> = { ...base, ...src.fields };
  if (typeof out.title === 'string') out.title = out.title.trim();
  // A card made public drops its viewers, as the editor does.
  if (out.visibility === 'public' && src.fields.viewers === undefined) out.viewers = [];
  return out;
}

export function sameContent(a: CardFields, b: CardFields): boolean {
  const list = (x: string[]) => JSON.stringify(x);
  return a.title === b.title && a.body === b.body && a.visibility === b.visibility
    && list(a.viewers) === list(b.viewers) && list(a.tags) === list(b.tags);
}

/**
 * The plan for `sources`. Only the cards the import could write are looked
 * up (`among`: each source's derived id, the id derived before namespaces,
 * and its key where that is an id: a key that already is one of the owner's
 * cards is kept, so an exported card read back updates itself, and so is a
 * card imported before namespaces); the owner's other cards are never read.
 */
export async function planImport(owner: string, sources: SourceCard[], among: OwnCardsAmong): Promise<ImportPlan> {
  const plan: ImportPlan = { creates: [], updates: [], unchanged: [], problems: [] };
  const derived = await Promise.all(sources.map((src) => derivedCardId(owner, src.key)));
  const legacy = await Promise.all(sources.map((src) => legacyDerivedId(owner, src.key)));
  const stored = await among([...new Set([...derived, ...legacy, ...sources.map((s) => s.key).filter(isDocId)])]);
  const seen = new Map<string, string>();
  sources.forEach((src, i) => {
    const id = [src.key, legacy[i]].find((k) => stored.has(k)) ?? derived[i];
    const first = seen.get(id);
    if (first !== undefined) {
      plan.problems.push({ where: src.where, why: `duplicate id: the same card as ${first}` });
      return;
    }
    seen.set(id, src.where);
    const old = stored.get(id);
    const fields = merged(src, old);
    const problems = cardProblems(fields);
    if (problems.length) {
      plan.problems.push({ where: src.where, why: problems.map((p) => `${p.field} ${p.why}`).join('; ') });
      return;
    }
    const card = { id, where: src.where, fields: fields as unknown as CardFields };
    if (!old) plan.creates.push(card);
    else if (sameContent(old as unknown as CardFields, card.fields)) plan.unchanged.push(card);
    else plan.updates.push({ ...card, before: storedFields(old) });
  });
  return plan;
}

function n(count: number): string {
  return count.toLocaleString('en');
}

/** "412 created, 3 updated, 2 skipped: 1 unchanged, 1 with problems" */
export function summary(created: number, updated: number, unchanged: number, problems: number): string {
  const skipped = unchanged + problems;
  const why = [unchanged ? `${n(unchanged)} unchanged` : '', problems ? `${n(problems)} with problems (listed below)` : '']
    .filter(Boolean).join(', ');
  return `${n(created)} created, ${n(updated)} updated, ${n(skipped)} skipped${skipped ? `: ${why}` : ''}`;
}
