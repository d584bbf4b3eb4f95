// A card's id is in its owner's namespace: their uid, the separator, then
// anything (common/collections.json card_ids). firestore.rules lets a client
// create only such ids, so nobody probes, takes or re-creates another
// owner's; a card of an older id stays its owner's to edit and delete.
import shared from '../../../common/collections.json';

export const CARD_ID_SEPARATOR: string = shared.card_ids.separator;

/** The id `local` takes in `uid`'s namespace. */
export function ownCardId(uid: string, local: string): string {
  return `${uid}${CARD_ID_SEPARATOR}${local}`;
}

/** Whether `uid` may create a card of id `id` (firestore.rules inOwnNamespace()). */
export function isOwnCardId(uid: string, id: string): boolean {
  return id.length > uid.length + CARD_ID_SEPARATOR.length && id.split(CARD_ID_SEPARATOR)[0] === uid;
}
