"""Shapes of the per-user documents kept beside the chats: users' own API keys,
personal access tokens, the owner's answer feedback, daily usage and rate limits. One
definition each, like schema/documents.py (whose helpers they share); apart so that
neither module outgrows a reader."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from cardchat.schema.documents import COLLECTIONS, SHARED, _dict, now
from cardchat.schema.messages import Usage

#: Server-only: users' own provider API keys, encrypted (access/own_keys.py). Rules deny every client.
USER_API_KEYS = COLLECTIONS["user_api_keys"]
#: Personal access tokens: the owner-readable listing (label, dates, never the hash) ...
ACCESS_TOKENS = COLLECTIONS["access_tokens"]
#: ... and, server-only, the SHA-256 of each token: what a request's bearer token is looked up by.
ACCESS_TOKEN_HASHES = COLLECTIONS["access_token_hashes"]
#: ... and, server-only, one document per owner that every createAccessToken writes in its
#: transaction, so that two made at once conflict and the second counts the first's token.
ACCESS_TOKEN_OWNERS = COLLECTIONS["access_token_owners"]
#: What a personal access token may do: `read` cards and chats, or also `write` the owner's cards.
TOKEN_SCOPES: tuple[str, ...] = ("read", "write")
#: The owner's rating of an answer (AnswerFeedback): owner and admins only, never on the message.
ANSWER_FEEDBACK = COLLECTIONS["answer_feedback"]
#: What a complete answer's run counted and cost (AnswerUsage): owner and admins only, never on the message.
ANSWER_USAGE = COLLECTIONS["answer_usage"]
#: Per owner, UTC day and model: answers, tokens, cost (UsageDay). Owner and admins only.
USAGE_DAILY = COLLECTIONS["usage_daily"]


@dataclass
class StoredApiKey:
    """user_api_keys/{uid}.keys.<provider>: server-only. The key sealed with
    AES-GCM (llm/keycrypt.py) under a key kept in env / Firebase secrets; only
    `last4` is ever shown back."""

    ciphertext: bytes
    nonce: bytes
    last4: str
    updated: datetime = field(default_factory=now)
    # an OpenAI-compatible endpoint's (llm/compatible.py OWN): its base URL sealed
    # as the key is, and its host, which listApiKeys shows
    url_ciphertext: bytes | None = None
    url_nonce: bytes | None = None
    host: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in _dict(self).items() if v is not None}


# --- personal access tokens ------------------------------------------


@dataclass
class AccessToken:
    """access_tokens/{token_id}: one of a user's personal access tokens as its
    owner lists it (rules: the owner reads, nobody writes). Holds neither the
    token nor its hash: those exist only in the owner's hands and in
    AccessTokenHash."""

    owner: str
    label: str
    created: datetime = field(default_factory=now)
    last_used: datetime | None = None
    #: TOKEN_SCOPES: `read` (search and read, what every token did before scopes) or `write`.
    scope: str = "read"

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


@dataclass
class AccessTokenHash:
    """access_token_hashes/{sha256 hex of the token}: server-only. A request's
    bearer token is hashed and looked up here, in the transaction that spends
    a slot of its owner's MCP minute (rate_limits/{uid}/windows/mcp, shared by
    all their tokens) and stamps last_used."""

    owner: str
    token_id: str
    created: datetime = field(default_factory=now)
    #: What a request may do with it (AccessToken.scope); a token stored before scopes reads only.
    scope: str = "read"

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


# --- answers you can check ---------------------------------------------

Rating = Literal["up", "down"]


@dataclass
class AnswerFeedback:
    """answer_feedback/{message_id}: the chat owner's rating of one complete
    answer. Owner and admins read it; visitors and viewers of the chat read
    its messages, so the rating is never on the message. Written by
    rateAnswer only; a cleared rating deletes it."""

    owner: str
    chat: str
    message: str
    rating: Rating
    comment: str = ""
    model: str = ""
    created: datetime = field(default_factory=now)
    updated: datetime = field(default_factory=now)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


@dataclass
class AnswerUsage:
    """answer_usage/{message_id}: what a complete answer's run counted, and its cost. The prompt's
    size is the background's, which no reader of the chat may learn, so this is apart from the
    message (which visitors and viewers read): owner and admins read it, written in the answer's
    final transaction (repo/messages.finish), deleted with the chat and with the account."""

    owner: str
    chat: str
    usage: Usage
    # derived from usage at the model's dated price (llm/models.cost_usd); None: the model has no known price
    cost_usd: float | None = 0.0
    # searches of the chat's cards its model ran (generation/look_further.py): a count, never the queries
    card_searches: int = 0

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


@dataclass
class UsageDay:
    """usage_daily/{owner}_{day}_{model}: the answers one owner got from one
    model on one UTC day, added to in the transaction that completes each
    answer (never summed by a client). Owner and admins read it."""

    owner: str
    day: str  # YYYY-MM-DD, UTC
    model: str
    answers: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0  # of the answers whose model has a known price (the SPA says which have none)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


def usage_day_id(owner: str, day: str, model: str) -> str:
    # a compatible endpoint's model name may hold a slash (`meta-llama/llama-3.3-70b`), which no document id may
    return f"{owner}_{day}_{model}".replace("/", "%2F")


# --- card viewers by email ---------------------------------------------

#: Server-only, per user: their budget of email look-ups and the uids they found by email (ViewerLookups).
VIEWER_LOOKUPS = COLLECTIONS["viewer_lookups"]


@dataclass
class ViewerLookups:
    """viewer_lookups/{uid}: server-only (rules deny every client). How many
    addresses the user looked up in the current window (access/card_viewers.py), and
    the uids those look-ups found: the only uids whose email is ever named
    back to them. Holds no email."""

    window_start: datetime = field(default_factory=now)
    count: int = 0
    found: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


#: Per user: the card sources they follow, the people whose shared cards they accepted and those
#: they stopped (CardSources). The owner writes it (firestore.rules); the server reads
#: `accepted_sharers` (less `hidden_sharers`) when resolving a collection.
CARD_SOURCES = COLLECTIONS["card_sources"]
_SOURCE_LIMITS = SHARED["card_source_limits"]
#: How many people's shared cards a user may accept: each is one query of a "shared" scope.
ACCEPTED_SHARERS_MAX: int = _SOURCE_LIMITS["accepted_sharers_max"]
#: Cards a "shared" scope takes from all accepted sharers together, at most (repo/card_sources.py).
SHARED_CARDS_MAX: int = _SOURCE_LIMITS["shared_cards_max"]


@dataclass
class FollowedSource:
    """One followed owner's public cards, optionally only those with `tag`."""

    owner: str
    tag: str | None = None


@dataclass
class CardSources:
    """card_sources/{uid}: the user's choices of other people's cards. A missing
    document is no followed source, nobody accepted and nobody stopped.

    Cards someone shares with the user (their `viewers` hold the user) join the user's
    "shared" scope only once the user accepted that person: sharing alone must not
    let anyone grow what the user's calls read. Stopping a person (`hidden_sharers`)
    takes them out of `accepted_sharers` and keeps them off the pending list; the
    rules refuse a uid in both."""

    owner: str
    following: list[FollowedSource] = field(default_factory=list)
    hidden_sharers: list[str] = field(default_factory=list)  # uids stopped: never pending, never taken
    accepted_sharers: list[str] = field(default_factory=list)  # uids whose shared cards the scope takes
    updated: datetime = field(default_factory=now)

    def to_dict(self) -> dict[str, Any]:
        d = _dict(self)
        d["following"] = [{k: v for k, v in f.items() if v is not None} for f in d["following"]]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CardSources:
        following = [f for f in d.get("following") or [] if isinstance(f, dict) and isinstance(f.get("owner"), str)]
        return cls(
            owner=str(d.get("owner") or ""),
            following=[FollowedSource(f["owner"], f.get("tag")) for f in following],
            hidden_sharers=[u for u in d.get("hidden_sharers") or [] if isinstance(u, str)],
            accepted_sharers=[u for u in d.get("accepted_sharers") or [] if isinstance(u, str)],
            updated=d.get("updated") or now(),
        )


@dataclass
class TokenReservation:
    """One admitted answer's hold on its owner's daily tokens, in
    RateLimit.reservations (server-only: chat_messages is client-readable).

    Made in the transaction that admits the answer (createChat, postMessage,
    retryMessage, branchChat) and settled exactly once, by the run that pays
    for it (access/ratelimit.py explains the day boundary and a run that died)."""

    message: str  # chat_messages id of the answer
    attempt: int  # the claim it pays for: the message's `attempts` once the engine claims it
    tokens: int  # bound: background + history bound + output reserve
    created: datetime = field(default_factory=now)


@dataclass
class RateLimit:
    """rate_limits/{uid}: server-only."""

    recent: list[datetime] = field(default_factory=list)  # message times in the last minute
    day: str = ""  # YYYY-MM-DD (UTC) the token count belongs to
    day_tokens: int = 0  # settled (used) tokens of `day`
    reservations: list[TokenReservation] = field(default_factory=list)  # answers not yet settled

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)


#: Server-only, keyed by uid: an account deleted whose later pass is due (AccountDeletion).
ACCOUNT_DELETIONS = COLLECTIONS["account_deletions"]


@dataclass
class AccountDeletion:
    """account_deletions/{uid}: the account was deleted; at `due` the deletion runs again
    (access/account_deletion.py), for what a still-valid ID token wrote after it, and this goes."""

    due: datetime

    def to_dict(self) -> dict[str, Any]:
        return _dict(self)
