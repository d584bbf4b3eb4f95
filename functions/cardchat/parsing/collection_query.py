"""A collection described by a query rather than by ids.

"Chat with all 10,000 cards" sends this, not 10,000 ids: the server resolves it
with the same permission culling as an id list (documents.Card.visible_to). One
definition, shared by createChat (chat/create.py), the searchCards callable,
MCP search_cards and the retrieval index's filters; the SPA sends the same
fields, and the scope names come from common/collections.json
(`collection_query`).

- scope: whose cards. Only the caller's own unless they chose otherwise:
  "mine" (the default), "shared" (private cards of others whose viewers hold
  the caller, of the people the caller accepted: card_sources.accepted_sharers),
  "mine_and_shared" (both), or "owner" (the public cards of `owner`, one
  followed person). Every public card of everyone is not a scope: a chat
  would then hold strangers' text, and its cost would grow with what they
  wrote. "visible", the old default, is read as "mine_and_shared"; a chat
  stored with the old "public" scope reads as the caller's own public cards.
- owner: the uid whose public cards scope "owner" takes (with no other scope);
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
from cardchat.schema.documents import SHARED, Card

_SHARED_QUERY: dict[str, Any] = SHARED["collection_query"]
SCOPES: tuple[str, ...] = tuple(_SHARED_QUERY["scopes"])
DEFAULT_SCOPE: str = _SHARED_QUERY["default_scope"]
#: Old names a request or a stored chat may still carry, and the scope each is read as.
LEGACY_SCOPES: dict[str, str] = dict(_SHARED_QUERY["legacy_scopes"])
#: Why an answer's collection is empty, when the caller can do something about it.
OWNER_HAS_NO_PUBLIC_CARDS = "owner_has_no_public_cards"
assert OWNER_HAS_NO_PUBLIC_CARDS in _SHARED_QUERY["empty_reasons"]
#: Scopes that take other people's cards shared with the caller.
WITH_SHARED = frozenset({"shared", "mine_and_shared"})
#: Scopes that take the caller's own cards.
WITH_MINE = frozenset({"mine", "mine_and_shared"})
#: A uid's length at most (Firebase Auth's limit).
MAX_OWNER_CHARS = 128


@dataclass(frozen=True)
class CollectionQuery:
    scope: str = DEFAULT_SCOPE
    tag: str | None = None
    visibility: str | None = None
    text: str | None = None
    owner: str | None = None

    def __post_init__(self) -> None:
        if self.scope not in SCOPES:
            raise ValueError(f"unknown scope {self.scope!r}: expected one of {', '.join(SCOPES)}")
        if (self.scope == "owner") != bool(self.owner):
            raise ValueError("scope 'owner' takes an owner, and only it does")

    def to_dict(self) -> dict[str, Any]:
        """As stored (owner-only, in chat_private.collection_query) and as the SPA sends it."""
        return {k: v for k, v in vars(self).items() if v is not None}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CollectionQuery:
        """A stored query, old scopes included: "visible" reads as "mine_and_shared", and "public"
        (everyone's public cards, no longer a scope) as the caller's own public cards."""
        scope = d.get("scope") or DEFAULT_SCOPE
        visibility = d.get("visibility")
        if scope == "public":
            scope, visibility = "mine", "public"
        scope = LEGACY_SCOPES.get(scope, scope)
        owner = d.get("owner") if scope == "owner" else None
        return cls(scope=scope, tag=d.get("tag"), visibility=visibility, text=d.get("text"), owner=owner)

    @property
    def foreign(self) -> bool:
        """Whether the collection may hold other people's cards."""
        return self.scope != "mine"

    def admits(self, card: Card, uid: str) -> bool:
        """`card` is in this collection for `uid` by everything but `text` (and but whether
        `uid` accepted its owner, which the resolver asks first): readable by `uid` and within
        scope, tag and visibility."""
        if not card.visible_to(uid):
            return False
        mine = card.owner == uid
        shared = not mine and card.visibility != "public"
        in_scope = {
            "mine": mine,
            "shared": shared,
            "mine_and_shared": mine or shared,
            "owner": card.owner == self.owner and card.visibility == "public",
        }[self.scope]
        return (
            in_scope
            and (self.tag is None or self.tag in card.tags)
            and (self.visibility is None or card.visibility == self.visibility)
        )


# --- as a request carries it (createChat's `query`, searchCards' fields, MCP search_cards; parsing/requests.py) ---

#: Characters of a query's or a search's text: a few words to match, not a document.
MAX_QUERY_TEXT_CHARS = 500
_KEYS = ("scope", "owner", "tag", "visibility", "text")


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


def _scope(data: Mapping[str, Any], name: str) -> str:
    scope = data.get("scope")
    if scope is None:
        return DEFAULT_SCOPE
    if not isinstance(scope, str) or LEGACY_SCOPES.get(scope, scope) not in SCOPES:
        raise InvalidArgument(f"{_field(name, 'scope')}: must be one of {', '.join(SCOPES)}")
    return LEGACY_SCOPES.get(scope, scope)


def _owner(data: Mapping[str, Any], name: str, scope: str) -> str | None:
    owner, field = data.get("owner"), _field(name, "owner")
    if scope != "owner":
        if owner is not None:
            raise InvalidArgument(f"{field}: goes only with scope owner")
        return None
    if not isinstance(owner, str) or not owner.strip():
        raise InvalidArgument(f"{field}: scope owner needs the uid of the person whose public cards to take")
    if len(owner) > MAX_OWNER_CHARS or "/" in owner or owner != owner.strip():
        raise InvalidArgument(f"{field}: is not a user id")
    try:
        owner.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument(f"{field}: is not a user id") from None
    return owner


def from_request(data: Any, name: str = "query", keys: tuple[str, ...] = _KEYS) -> CollectionQuery:
    """A CollectionQuery from a client's `data` ({scope?, owner?, tag?, visibility?, text?}), every
    field checked (InvalidArgument naming it); `name` names it in errors ("" for searchCards, whose
    fields are at the top of the request, and whose `keys` leave out the text)."""
    if not isinstance(data, dict):
        raise InvalidArgument(f"{name}: must be an object {{{', '.join(k + '?' for k in keys)}}}")
    unknown = sorted(str(k)[:40] for k in data if k not in keys)
    if unknown:
        raise InvalidArgument(f"{_field(name, unknown[0])}: unknown field (expected {', '.join(keys)})")
    scope = _scope(data, name)
    owner = _owner(data, name, scope)
    visibility, allowed = data.get("visibility"), SHARED["card_limits"]["visibilities"]
    if visibility is not None and visibility not in allowed:
        raise InvalidArgument(f"{_field(name, 'visibility')}: must be one of {', '.join(allowed)}")
    return CollectionQuery(
        scope=scope,
        tag=request_string(data, "tag", name, SHARED["card_limits"]["tag_max_chars"]),
        visibility=visibility,
        text=request_string(data, "text", name, MAX_QUERY_TEXT_CHARS) if "text" in keys else None,
        owner=owner,
    )
