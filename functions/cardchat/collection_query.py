"""A collection described by a query rather than by ids (issue 21).

"Chat with all 10,000 cards" sends this, not 10,000 ids: the server resolves it
with the same permission culling as an id list (schema.Card.visible_to). One
definition, shared by createChat (chat/create.py), the searchCards callable and
the per-owner retrieval index's filters; the SPA sends the same fields.

- scope: whose cards: "visible" (every card the caller may read: their own,
  private ones shared with them, public ones), "mine", "shared" (others' cards
  shared with the caller) or "public" (public cards, anyone's);
- tag: only cards carrying this tag;
- visibility: only cards with this visibility;
- text: only cards the text matches (a positive BM25 score: they contain at
  least one of its terms); ranking against the question happens afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardchat.schema import Card

SCOPES = ("visible", "mine", "shared", "public")


@dataclass(frozen=True)
class CollectionQuery:
    scope: str = "visible"
    tag: str | None = None
    visibility: str | None = None
    text: str | None = None

    def __post_init__(self) -> None:
        if self.scope not in SCOPES:
            raise ValueError(f"unknown scope {self.scope!r}: expected one of {', '.join(SCOPES)}")

    def to_dict(self) -> dict[str, Any]:
        """As stored (owner-only, in chat_private.collection_query) and as the SPA sends it."""
        return {k: v for k, v in vars(self).items() if v is not None}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CollectionQuery:
        return cls(
            scope=d.get("scope", "visible"), tag=d.get("tag"), visibility=d.get("visibility"), text=d.get("text")
        )

    def admits(self, card: Card, uid: str) -> bool:
        """`card` is in this collection for `uid` by everything but `text`:
        readable by `uid` and within scope, tag and visibility."""
        if not card.visible_to(uid):
            return False
        mine = card.owner == uid
        in_scope = {
            "visible": True,
            "mine": mine,
            "shared": not mine and card.visibility != "public",
            "public": card.visibility == "public",
        }[self.scope]
        return (
            in_scope
            and (self.tag is None or self.tag in card.tags)
            and (self.visibility is None or card.visibility == self.visibility)
        )
