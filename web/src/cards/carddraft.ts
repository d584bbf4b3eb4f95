// A new card's draft handed to the editor by another view ("Save as card" on
// an answer): held in memory until the editor takes it, so nothing is
// written before the owner saves, and a reload of /new opens an empty editor.
import type { DerivedFrom } from '../data/shapes';
import type { CardFields } from './cardvalidity';

export interface CardDraft {
  fields: CardFields;
  derivedFrom: DerivedFrom | null;
}

let pending: CardDraft | null = null;

export function offerDraft(draft: CardDraft): void {
  pending = draft;
}

/** The draft offered since the last take, once. */
export function takeDraft(): CardDraft | null {
  const draft = pending;
  pending = null;
  return draft;
}
