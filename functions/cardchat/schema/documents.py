"""One typed definition per Firestore document shape.

Writers (endpoints, importer, engine) and tests both build documents through
these, so a field renamed here is renamed everywhere. Timestamps are
`datetime` (timezone-aware, UTC); Firestore stores them as Timestamps.
Nothing here imports Firebase: the store adapter turns these into dicts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

_COMMON = Path(__file__).resolve().parents[1] / "common" / "collections.json"
if not _COMMON.exists():  # running from the repository, not a deployed copy
    _COMMON = Path(__file__).resolve().parents[3] / "common" / "collections.json"
_SHARED = json.loads(_COMMON.read_text())
#: common/collections.json as read (parsing/card_validity.py takes its `card_limits`).
SHARED: dict[str, Any] = _SHARED

#: Collection names, shared with the SPA through common/collections.json.
COLLECTIONS: dict[str, str] = _SHARED["collections"]
CARDS = COLLECTIONS["cards"]
USERS = COLLECTIONS["users"]
CARD_EMBEDDINGS = COLLECTIONS["card_embeddings"]
CHATS = COLLECTIONS["chats"]
#: The owner's data about a chat (cards, collection, counts): owner and admins only.
CHAT_PRIVATE = COLLECTIONS["chat_private"]
CHAT_MESSAGES = COLLECTIONS["chat_messages"]
CHAT_MESSAGES_STREAMING = COLLECTIONS["chat_messages_streaming"]
#: Server-only: the hidden background of each chat. Rules deny every client.
CHAT_BACKGROUNDS = COLLECTIONS["chat_backgrounds"]
#: Subcollection of a background: the text split into parts below the 1 MiB
#: document limit (a 1M-token window at 50 % is several MB of text).
CHAT_BACKGROUND_PARTS = COLLECTIONS["chat_background_parts"]
RATE_LIMITS = COLLECTIONS["rate_limits"]
#: rate_limits/{uid}/windows/{name}: server-only, a user's minute of calls that make no answer
#: (SEARCH_WINDOW, MCP_WINDOW: searches, MCP requests), apart from the answers' own slots.
RATE_WINDOWS = COLLECTIONS["rate_windows"]
SEARCH_WINDOW = "search"
MCP_WINDOW = "mcp"
PIN_WINDOW = "pins"
#: Who wrote a shared chat: readable by the chat's viewers, and by
#: anyone only while the chat is published and the owner shows their name.
CHAT_AUTHORS = COLLECTIONS["chat_authors"]
#: chat_viewers/{chat}_{uid} (ids.chat_viewer_id): whom a chat is shared with, one doc each, readable by
#: the chat's owner and that viewer alone; the rules let a viewer read the chat while theirs exists.
CHAT_VIEWERS = COLLECTIONS["chat_viewers"]
#: At most this many people a chat is shared with (ChatViewer docs per chat).
MAX_VIEWERS = 50
#: Server-only: per owner, the retrieval index's head (version, shard list) and its shards.
RETRIEVAL_INDEX = COLLECTIONS["retrieval_index"]
RETRIEVAL_INDEX_SHARDS = COLLECTIONS["retrieval_index_shards"]
FUNCTION_NAMES: dict[str, str] = _SHARED["functions"]
REGION: str = _SHARED["region"]
#: Message statuses and the stall rule, shared with the SPA (scripts/gen-common: web/src/generated/messagestatus.ts).
MESSAGE_STATUS: dict[str, str] = _SHARED["message_status"]
LIVE_STATUSES = frozenset(_SHARED["message_stall"]["live"])
STALLED_WITHOUT_LEASE = frozenset(_SHARED["message_stall"]["stalled_without_lease"])
RETRYABLE_STATUSES = frozenset(_SHARED["message_stall"]["retryable"])
#: The tag that keeps a card out of default chats, searches and MCP results (chat/candidates.py), shared with the SPA.
OUTDATED_TAG: str = _SHARED["card_limits"]["outdated_tag"]

#: generateAnswer's time limit (endpoints/triggers.py); the engine's deadline is derived from it (engine.DEADLINE_S).
GENERATE_TIMEOUT_S = 540
SCRATCH_TTL = timedelta(days=2)  # a streaming chunk's `expires` after its writing (firestore.indexes.json TTL)

Visibility = Literal["public", "private"]
Role = Literal["user", "assistant"]
Status = Literal["ready", "streaming", "complete", "failed"]


def now() -> datetime:
    return datetime.now(UTC)


def _dict(obj: Any) -> dict[str, Any]:
    return asdict(obj)


@dataclass
class Card:
    """cards/{card_id}"""

    title: str
    body: str  # Markdown
    owner: str  # uid
    visibility: Visibility = "private"
    viewers: list[str] = field(default_factory=list)  # uids that may read a private card
    tags: list[str] = field(default_factory=list)
    created: datetime = field(default_factory=now)
    updated: datetime = field(default_factory=now)
    # A card the owner saved from an answer also holds `derived_from`
    # ({chat_id, message_id}, firestore.rules validDerivedFrom), written by the
    # SPA only. The server neither reads nor writes it: not a field here, so
    # the importer's updates (content only) leave it as it is.

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Card:
        return cls(
            title=d.get("title", ""),
            body=d.get("body", ""),
            owner=d.get("owner", ""),
            visibility=d.get("visibility", "private"),
            viewers=list(d.get("viewers") or []),
            tags=list(d.get("tags") or []),
            created=d.get("created") or now(),
            updated=d.get("updated") or now(),
        )

    def visible_to(self, uid: str | None) -> bool:
        """firestore.rules' cardIsVisible() without its admin clause: the server
        culls for the caller as a user, admins included."""
        if self.visibility == "public":
            return True
        return uid is not None and (uid == self.owner or uid in self.viewers)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def updated_stamp(card: Card) -> int:
    """A card's `updated` in whole microseconds (Firestore's precision): the
    stamp a chat keeps per packed card (ChatBackground.card_updated) and the
    retrieval index per entry, so comparing the two tells an edit without a read."""
    return (card.updated - _EPOCH) // timedelta(microseconds=1)


def stamp_time(stamp: int) -> datetime:
    """The `updated` an `updated_stamp` was taken of."""
    return _EPOCH + timedelta(microseconds=stamp)


@dataclass
class UserDoc:
    """users/{uid}: written only by the server or the admin CLI."""

    may_use_ai: bool = False
    admin: bool = False

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> UserDoc:
        """A stored users/{uid} (None: no such document): a grant counts only when exactly True."""
        d = d or {}
        return cls(may_use_ai=d.get("may_use_ai") is True, admin=d.get("admin") is True)


@dataclass
class CardEmbedding:
    """card_embeddings/{card_id}: server-only.

    `vector` is little-endian float32 bytes (see embeddings.pack): 1.5 KB for
    384-d, read back with one numpy.frombuffer and no per-element decoding.
    `owner` is the card's: its owner may count their embeddings (an import's
    "embedded n / N"); no one else reads any.
    """

    model: str
    dim: int
    vector: bytes
    text_hash: str
    # Keyword-only: passed by position, an owner once landed in `updated`.
    updated: datetime = field(default_factory=now, kw_only=True)
    owner: str = field(default="", kw_only=True)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


@dataclass
class Collection:
    description: str = ""
    configuration: dict[str, Any] = field(default_factory=dict)


@dataclass
class Chat:
    """chats/{chat_id}: what a reader of the conversation needs, and no more.
    Readable by the owner and, once published, by anyone with the link, so it
    names no private card, no collection and none of the owner's other chats:
    those are in ChatPrivate."""

    owner: str
    title: str
    model: str
    # "n" → id of the card [n] names, for the numbers a complete answer cites whose card is public: a
    # visitor's links (any other [n] is "a card you cannot view"). Added by that answer's final write
    # alone (chat/packed_cards.answer_citations); the re-check only removes (chat/recheck.py). So a card
    # packed but never cited, or cited while private, is in no document a reader of the chat reads.
    public_citations: dict[str, str] = field(default_factory=dict)
    published: bool = False
    created: datetime = field(default_factory=now)
    last_updated: datetime = field(default_factory=now)
    message_count: int = 2  # next message_index; bumped in the same transaction as appends
    # the owner's switch: its model may search the chat's cards while it answers (generation/look_further.py)
    look_further: bool = False
    # Whom it is shared with is not here (anyone who may read the chat would read it): see ChatViewer.

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Chat:
        """A stored chat, missing fields at their defaults (one place for `or 0`)."""
        return cls(
            owner=d.get("owner") or "",
            title=d.get("title") or "",
            model=d.get("model") or "",
            public_citations=dict(d.get("public_citations") or {}),
            published=bool(d.get("published")),
            created=d.get("created") or now(),
            last_updated=d.get("last_updated") or now(),
            message_count=int(d.get("message_count") or 0),
            look_further=d.get("look_further") is True,
        )


@dataclass
class ChatViewer:
    """chat_viewers/{chat}_{viewer}: `viewer` may read `chat` as a visitor of a
    published chat does (written by shareChat). Apart from the chat, which
    visitors read, so only the owner and the viewer learn whom it is shared with."""

    chat: str
    owner: str
    viewer: str  # a uid, never an email
    added: datetime = field(default_factory=now)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


@dataclass
class ChatAuthor:
    """chat_authors/{chat_id}: the name on a chat's author chip, written by
    shareChat. Apart from the chat (which anyone may read once published) so
    the name never reaches a visitor unless the owner shows it."""

    owner: str
    name: str  # the owner's display name, or "" (the SPA then shows no chip); never an email
    shown: bool = False  # visitors of the published link see the chip

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


#: The most cards one chat may have pinned (chat/pins.py): past it a pin is refused.
MAX_PINS = 50
#: The most cards one chat may have excluded (chat/pins.py): past it an exclusion is refused, so that
#: chat_private and the re-pack before each answer stay small whatever a client sends.
MAX_EXCLUSIONS = 200


@dataclass
class ChatPrivate:
    """chat_private/{chat_id}: the owner's data about a chat. Readable by the
    owner and admins, written by the server alone; nothing of the cards' text."""

    owner: str
    background_length: int  # target tokens
    background_tokens: int  # tokens used
    # included cards in rank order; citation [n] is card_ids[n-1]. A card the
    # owner may no longer read is withdrawn from the background (chat/recheck.py)
    # and its entry becomes "": numbers are never reused.
    card_ids: list[str]
    card_count_requested: int
    collection: Collection = field(default_factory=Collection)
    # the owner of each card of card_ids when it was packed ("" for a withdrawn card, or one packed
    # before owners were kept): a card whose owner changed since (deleted, and its id made again by
    # someone else) is withdrawn like a deleted one (chat/recheck.py)
    card_owners: list[str] = field(default_factory=list)
    # how many requested cards had no usable embedding: ranked by BM25 alone (retrieval/rank.py)
    cards_unranked: int = 0
    # set on a branch (chat/branch.py): {"chat": source chat id, "message_index": the question it re-asks}
    branched_from: dict[str, Any] | None = None
    # set on a continued chat (chat/continuation.py): {"chat": the chat it continues, "messages": turns copied}
    continued_from: dict[str, Any] | None = None
    # What the context holds, for the owner's "why" (generation/turn_context.py): cards ranked when the chat
    # was made, cards in the context now, cards the first budget left out, and per follow-up a ContextTurn.
    cards_considered: int = 0
    cards_packed: int = 0
    cards_cut: int = 0
    context_turns: list[dict[str, Any]] = field(default_factory=list)
    # A chat made from a query: its description (collection_query.CollectionQuery.to_dict()),
    # owner-only like the rest; absent (not null) for a chat made from ids.
    collection_query: dict[str, Any] | None = None
    # Cards of other people the context has held (a count, never which): the owner's publish control says so.
    cards_by_others: int = 0
    # A chat made from a saved collection (schema/saved_collections.SavedCollection): its id; absent otherwise.
    collection_id: str | None = None
    # The owner's choices (chat/pins.py): cards always in the context, and cards never in it again.
    pinned_cards: list[str] = field(default_factory=list)
    excluded_cards: list[str] = field(default_factory=list)
    # How many of its cards were edited since the chat was made and re-packed (chat/edited_cards.py): a count.
    cards_changed: int = 0

    def to_dict(self) -> dict[str, Any]:
        d = _dict(self)
        for optional in ("collection_query", "collection_id"):
            if d[optional] is None:
                del d[optional]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ChatPrivate:
        collection = d.get("collection") or {}
        return cls(
            owner=d.get("owner") or "",
            background_length=int(d.get("background_length") or 0),
            background_tokens=int(d.get("background_tokens") or 0),
            card_ids=list(d.get("card_ids") or []),
            card_count_requested=int(d.get("card_count_requested") or 0),
            card_owners=list(d.get("card_owners") or []),
            collection=Collection(
                description=collection.get("description") or "",
                configuration=dict(collection.get("configuration") or {}),
            ),
            cards_unranked=int(d.get("cards_unranked") or 0),
            branched_from=d.get("branched_from"),
            continued_from=d.get("continued_from"),
            cards_considered=int(d.get("cards_considered") or 0),
            cards_packed=int(d.get("cards_packed") or 0),
            cards_cut=int(d.get("cards_cut") or 0),
            context_turns=list(d.get("context_turns") or []),
            collection_query=d.get("collection_query"),
            cards_by_others=int(d.get("cards_by_others") or 0),
            collection_id=d.get("collection_id"),
            pinned_cards=list(d.get("pinned_cards") or []),
            excluded_cards=list(d.get("excluded_cards") or []),
            cards_changed=int(d.get("cards_changed") or 0),
        )


@dataclass
class ChatBackground:
    """chat_backgrounds/{chat_id} (+ parts/{i} with `text`): server-only, the
    hidden system text. Rules deny every client, admins included."""

    chat: str
    owner: str
    model: str
    tokens: int
    parts: int
    created: datetime = field(default_factory=now)
    # card id → its `updated` as packed, in microseconds (chat/edited_cards.py tells an edit by it)
    card_updated: dict[str, int] = field(default_factory=dict)
    # the cards re-packed since the chat was made, each once (ChatPrivate.cards_changed counts them)
    changed_cards: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ChatBackground:
        return cls(
            chat=d.get("chat") or "",
            owner=d.get("owner") or "",
            model=d.get("model") or "",
            tokens=int(d.get("tokens") or 0),
            parts=int(d.get("parts") or 0),
            created=d.get("created") or now(),
            card_updated={str(k): int(v) for k, v in (d.get("card_updated") or {}).items()},
            changed_cards=list(d.get("changed_cards") or []),
        )
