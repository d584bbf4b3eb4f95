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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cardchat.errors import InvalidArgument
from cardchat.schema import SHARED, Card

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


# --- as a request carries it (createChat's `query`, searchCards' fields; parsing.py) ---------------

#: Characters of a query's or a search's text: a few words to match, not a document.
MAX_QUERY_TEXT_CHARS = 500
_KEYS = ("scope", "tag", "visibility", "text")


def request_string(data: Mapping[str, Any], key: str, name: str, max_chars: int) -> str | None:
    """An optional string field of a request, trimmed; absent, null or blank is None."""
    value, field = data.get(key), _field(name, key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidArgument(f"{field}: must be text")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone UTF-16 surrogate: Firestore could not store it
        raise InvalidArgument(f"{field}: must be text") from None
    value = value.strip()
    if len(value) > max_chars:
        raise InvalidArgument(f"{field}: {len(value):,} characters is over the limit of {max_chars:,}")
    return value or None


def _field(name: str, key: str) -> str:
    """How an error names a field: `query.tag` inside createChat's query, `tag` at the top of searchCards'."""
    return f"{name}.{key}" if name else key


def from_request(data: Any, name: str = "query", keys: tuple[str, ...] = _KEYS) -> CollectionQuery:
    """A CollectionQuery from a client's `data` ({scope?, tag?, visibility?, text?}), every field
    checked (InvalidArgument naming it); `name` names it in errors ("" for searchCards, whose
    fields are at the top of the request, and whose `keys` leave out the text)."""
    if not isinstance(data, dict):
        raise InvalidArgument(f"{name}: must be an object {{scope?, tag?, visibility?, text?}}")
    unknown = sorted(str(k)[:40] for k in data if k not in keys)
    if unknown:
        raise InvalidArgument(f"{_field(name, unknown[0])}: unknown field (expected {', '.join(keys)})")
    scope = data.get("scope")
    scope = "visible" if scope is None else scope
    if scope not in SCOPES:
        raise InvalidArgument(f"{_field(name, 'scope')}: must be one of {', '.join(SCOPES)}")
    visibility, allowed = data.get("visibility"), SHARED["card_limits"]["visibilities"]
    if visibility is not None and visibility not in allowed:
        raise InvalidArgument(f"{_field(name, 'visibility')}: must be one of {', '.join(allowed)}")
    return CollectionQuery(
        scope=scope,
        tag=request_string(data, "tag", name, SHARED["card_limits"]["tag_max_chars"]),
        visibility=visibility,
        text=request_string(data, "text", name, MAX_QUERY_TEXT_CHARS) if "text" in keys else None,
    )
