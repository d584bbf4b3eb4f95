// One card read by id (a card's page, the editor, a citation's preview, an
// export), and the owner's skip record of it: single-document gets the rules
// allow to any reader the card admits.
import { doc, getDoc, type DocumentData } from 'firebase/firestore';
import { db } from './db';
import { COLLECTIONS } from './names';
import type { CardDoc } from './shapes';
import { toCard } from './snapshots';

export async function getCard(id: string): Promise<CardDoc | null> {
  const s = await getDoc(doc(db, COLLECTIONS.cards, id));
  return s.exists() ? toCard(s) : null;
}

/**
 * The owner's card's skip record (kept but not embedded, over a card quota), or null. Its id is in
 * the owner's namespace (`{uid}:{cardId}`, functions/cardchat/embeddings/card_quota.skip_id): the rules let
 * a user get their own, missing ones included, and nobody another's.
 */
/**
 * Where the owner's synced card came from ("my-vault/notes/git/rebase.md", syncCards), or null for a
 * card not synced. card_syncs/{cardId}: the rules let the owner get theirs, missing ones included.
 */
export async function getCardSync(id: string): Promise<string | null> {
  const s = await getDoc(doc(db, COLLECTIONS.card_syncs, id));
  return s.exists() ? `${String(s.get('source') ?? '')}/${String(s.get('path') ?? '')}` : null;
}

export async function getCardSkip(owner: string, id: string): Promise<DocumentData | null> {
  const s = await getDoc(doc(db, COLLECTIONS.embedding_skips, `${owner}:${id}`));
  return s.exists() ? s.data() : null;
}
