// What an import changes in each of the owner's stored cards, and which of
// those changes widen who may read the card. A JSON "deck" that only says
// {id, visibility: "public"} of one of the owner's private cards would
// otherwise publish it unseen: a widening is shown card by card and written
// only once the owner confirms it; unconfirmed, the card keeps the access it
// has and takes the rest of its changes.
import type { CardFields } from '../cards/cardvalidity';
import type { ImportPlan, PlannedCard } from './importplan';

/** One field an update changes; lists are told as what they gain and lose. */
export interface FieldChange { field: keyof CardFields; what: string }

function listChange(before: readonly string[], after: readonly string[]): string {
  const added = after.filter((v) => !before.includes(v));
  const removed = before.filter((v) => !after.includes(v));
  const parts = [...added.map((v) => `+${v}`), ...removed.map((v) => `−${v}`)];
  return parts.length ? parts.join(' ') : 'reordered';
}

/** The fields `after` changes in `before`, in the card's order. */
export function fieldChanges(before: CardFields, after: CardFields): FieldChange[] {
  const out: FieldChange[] = [];
  if (before.title !== after.title) out.push({ field: 'title', what: 'changed' });
  if (before.body !== after.body) out.push({ field: 'body', what: 'changed' });
  if (before.visibility !== after.visibility) out.push({ field: 'visibility', what: `${before.visibility} → ${after.visibility}` });
  if (JSON.stringify(before.viewers) !== JSON.stringify(after.viewers)) {
    out.push({ field: 'viewers', what: listChange(before.viewers, after.viewers) });
  }
  if (JSON.stringify(before.tags) !== JSON.stringify(after.tags)) out.push({ field: 'tags', what: listChange(before.tags, after.tags) });
  return out;
}

/** Whether `after` lets someone read the card whom `before` did not: made public, or a viewer added. */
export function widensAccess(before: CardFields, after: CardFields): boolean {
  if (before.visibility === 'public') return false;
  if (after.visibility === 'public') return true;
  return after.viewers.some((v) => !before.viewers.includes(v));
}

/** The plan's updates that widen access (each has `before`). */
export function widening(plan: ImportPlan): PlannedCard[] {
  return plan.updates.filter((u) => u.before !== undefined && widensAccess(u.before, u.fields));
}

/**
 * The writes of `plan`: with `widen` confirmed, its updates as they are;
 * without, a widening update keeps the card's stored visibility and viewers
 * (and is left out when nothing else changes).
 */
export function importWrites(plan: ImportPlan, widen: boolean): { creates: PlannedCard[]; updates: PlannedCard[] } {
  if (widen) return { creates: plan.creates, updates: plan.updates };
  const updates = plan.updates.flatMap((u) => {
    if (u.before === undefined || !widensAccess(u.before, u.fields)) return [u];
    const kept = { ...u, fields: { ...u.fields, visibility: u.before.visibility, viewers: u.before.viewers } };
    return fieldChanges(u.before, kept.fields).length ? [kept] : [];
  });
  return { creates: plan.creates, updates };
}
