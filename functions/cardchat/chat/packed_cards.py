"""What a chat's documents record of the cards packed into it, derived from
the cards as read: the citation numbers anyone may follow (Chat.public_citations:
only numbers a complete answer cites, and only while their card is public, so a
visitor learns nothing of the cards packed but never cited), the owner of each
packed card (ChatPrivate.card_owners, which recheck uses to withdraw a card whose
id was made again by someone else), and when each was last written as it was
packed (ChatBackground.card_updated, which tells an edited card: schema/documents.py `updated_stamp`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from cardchat.schema.documents import Card, updated_stamp
from cardchat.schema.messages import ChatMessage

if TYPE_CHECKING:
    from cardchat.repo.db import Db


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


def cited_public(cited: Iterable[int], card_ids: list[str], cards: dict[str, Card]) -> dict[str, str]:
    """The entries of Chat.public_citations that answers citing the numbers `cited` (their
    `sources`) give: each number whose card in `card_ids` (citation order) is public as
    `cards` stand now."""
    return {
        str(n): card_ids[n - 1]
        for n in cited
        if 0 < n <= len(card_ids) and card_ids[n - 1] in cards and cards[card_ids[n - 1]].visibility == "public"
    }


def copied_citations(messages: Iterable[ChatMessage], card_ids: list[str], cards: dict[str, Card]) -> dict[str, str]:
    """Chat.public_citations of a chat that starts with `messages` copied (a branch, a continuation):
    what their complete answers cite, of its own `card_ids` as `cards` stand now."""
    cited = [n for m in messages if m.role == "assistant" and m.status == "complete" for n in m.sources or []]
    return cited_public(cited, card_ids, cards)


def stale_citations(citations: dict[str, str], card_ids: list[str], cards: dict[str, Card]) -> list[str]:
    """The numbers of `citations` (Chat.public_citations) that link no more: their card withdrawn
    from `card_ids`, or no longer public as `cards` stand now."""
    return sorted(n for n, cid in citations.items() if cited_public([int(n)], card_ids, cards) != {n: cid})


def answer_citations(db: Db, sources: list[int], card_ids: list[str], owners: list[str]) -> dict[str, str]:
    """What a complete answer citing `sources` of `card_ids` (packed from cards of `owners`) adds to
    Chat.public_citations in its final write: its cited cards read now (a few small reads, never
    another card), a card whose id was made again by someone else since it was packed left out."""
    from cardchat.repo import cards as card_repo

    cited = [card_ids[n - 1] for n in sources if 0 < n <= len(card_ids) and card_ids[n - 1]]
    cards = card_repo.load_access(db, cited) if cited else {}
    known = packed_owners(card_ids, cards, owners)
    same = {c: card for c, card in cards.items() if card.owner == known[card_ids.index(c)]}
    return cited_public(sources, card_ids, same)


def packed_stamps(card_ids: list[str], cards: dict[str, Card]) -> dict[str, int]:
    """ChatBackground.card_updated for the cards of `card_ids` as read in `cards`."""
    return {c: updated_stamp(cards[c]) for c in card_ids if c and c in cards}
