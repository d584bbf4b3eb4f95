"""A card written for its owner from outside the app: the MCP tools create_card and update_card,
with a write token (access/access_tokens.py). The owner's own cards only: a card they may not
read is not found, one they may read but do not own is refused, saying so. The card is held to
the one definition of a valid card (parsing/card_validity.py), as the rules hold the app's writes,
and the embedding worker's card quotas apply to it as to any card."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import TYPE_CHECKING, Any

from cardchat import ids
from cardchat.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from cardchat.parsing import card_validity
from cardchat.schema.documents import Card, now

if TYPE_CHECKING:
    from cardchat.repo.db import Db

NOT_YOURS = "You may update only your own cards: this one belongs to someone else"


def _check(fields: dict[str, Any], given: set[str]) -> None:
    """InvalidArgument naming the first field at fault (`markdown` for the card's body)."""
    for name, why in card_validity.problems(fields):
        if name in given or (name == "body" and "markdown" in given):
            raise InvalidArgument(f"{'markdown' if name == 'body' else name}: {why}")


def create_card(
    db: Db, uid: str, title: str, markdown: str, tags: list[str], visibility: str, when: datetime | None = None
) -> str:
    """The new card's id, in the owner's namespace."""
    from cardchat.repo import card_writes

    fields: dict[str, Any] = {"title": title.strip(), "body": markdown, "tags": tags, "visibility": visibility}
    _check(dict(fields, viewers=[]), {"title", "markdown", "tags", "visibility"})
    stamp = when or now()
    card_id = ids.own_card_id(uid, f"mcp-{secrets.token_hex(8)}")
    card_writes.write_cards(db, [(card_id, Card(owner=uid, created=stamp, updated=stamp, **fields))], {})
    return card_id


def update_card(db: Db, uid: str, card_id: str, changes: dict[str, Any], when: datetime | None = None) -> None:
    """`changes` (title, markdown, tags: those given) written over the owner's card `card_id`,
    on the condition that nobody changed it since it was read."""
    from cardchat.repo import card_writes

    stored = card_writes.read_cards(db, [card_id]).get(card_id)
    if stored is None or not stored.card.visible_to(uid):
        raise NotFound("Card not found")
    if stored.card.owner != uid:
        raise PermissionDenied(NOT_YOURS)
    card = stored.card
    fields: dict[str, Any] = {"title": card.title, "body": card.body, "tags": card.tags, "visibility": card.visibility}
    new = {"title": str(changes.get("title", card.title)).strip(), "body": changes.get("markdown", card.body)}
    fields.update(new, tags=changes.get("tags", card.tags))
    _check(dict(fields, viewers=card.viewers), set(changes))
    card.title, card.body, card.tags = str(fields["title"]), str(fields["body"]), list(fields["tags"])
    card.updated = when or now()
    try:
        card_writes.write_cards(db, [(card_id, card)], {card_id: stored.update_time})
    except card_writes.CardsChanged as e:
        raise FailedPrecondition("id: the card changed while it was being updated; try again") from e
