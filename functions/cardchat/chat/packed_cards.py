"""What a chat's documents record of the cards packed into it, derived from
the cards as read: the citation numbers anyone may follow (Chat.public_citations)
and the owner of each packed card (ChatPrivate.card_owners, which recheck uses to
withdraw a card whose id was made again by someone else), and when each was last
written as it was packed (ChatBackground.card_updated, which tells an edited card)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cardchat.schema.documents import Card

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def packed_owners(card_ids: list[str], cards: dict[str, Card], known: list[str] | None = None) -> list[str]:
    """ChatPrivate.card_owners for `card_ids`: the owner `known` (the list so far) gives a
    card, else its owner in `cards` (as read to pack it); "" for a withdrawn card."""
    known = known or []

    def owner(i: int, cid: str) -> str:
        if not cid:
            return ""
        if i < len(known) and known[i]:
            return known[i]
        return cards[cid].owner if cid in cards else ""

    return [owner(i, c) for i, c in enumerate(card_ids)]


def public_citations(card_ids: list[str], cards: dict[str, Card]) -> dict[str, str]:
    """Chat.public_citations for `card_ids` (citation order) as `cards` stand now."""
    return {
        str(n): cid for n, cid in enumerate(card_ids, start=1) if cid in cards and cards[cid].visibility == "public"
    }


def updated_stamp(card: Card) -> int:
    """A card's `updated` in whole microseconds (Firestore's precision): the
    stamp chat/edited_cards.py keeps per packed card, so a later read tells
    at a glance whether the card was written since it was packed."""
    return (card.updated - _EPOCH) // timedelta(microseconds=1)


def packed_stamps(card_ids: list[str], cards: dict[str, Card]) -> dict[str, int]:
    """ChatBackground.card_updated for the cards of `card_ids` as read in `cards`."""
    return {c: updated_stamp(cards[c]) for c in card_ids if c and c in cards}
