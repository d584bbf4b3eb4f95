"""Personal access tokens: how an MCP client (Claude Desktop, Claude Code,
Cursor, …) acts as one Cardchat user, and nothing more.

A token is `ccpat_` + 32 random bytes (URL-safe base64), shown to its owner
once, by createAccessToken. Only its SHA-256 is stored, as the id of a
server-only document (access_token_hashes); the owner lists their tokens
through access_tokens/{id}, which holds label and dates but never the hash.

Why a plain SHA-256 and not a slow or keyed hash: a password needs bcrypt or
scrypt because people pick guessable ones; a token of 256 random bits cannot
be guessed, so the only attack on a leaked hash is a preimage of SHA-256,
and a fast hash is what lets a request be checked with one document get by
id. A key (HMAC with a server secret) would add a secret to manage and rotate
for no gain against that. The `ccpat_` prefix lets secret scanners and
people recognise a leaked token.

Each request spends one slot of its user's MCP minute (documents.MCP_WINDOW,
CARDCHAT_MCP_RATE_PER_MINUTE, default 60), shared by all of that user's
tokens: a second token buys no more requests. The slot is spent in the
transaction that finds the token, so a revoked token fails at once.

A token acts only for a live account: one whose Auth user was deleted or
disabled is refused. The MCP endpoint is called often (a model's every tool
call), so Auth is asked at most once per ACCOUNT_CHECK_TTL per account and
instance (a live answer is remembered in memory; a refusal is not): a
disabled account's tokens stop within that time. No document flag would do:
Auth tells no trigger when an account is disabled.

A token has a scope (schema.accounts.TOKEN_SCOPES), fixed when it is made:
`read` (the default) searches and reads; `write` may also create and update
its owner's own cards (the MCP write tools, syncCards), and nothing else: no
chats, keys or settings, and never another person's card. A write spends the
same minute as a read, and the card quotas of the embedding worker apply to
what it writes as to any card.

At most MAX_TOKENS_PER_USER a user, counted in the transaction that creates
one (repo.access_tokens.create_within), so concurrent calls cannot pass it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from cardchat.access import ratelimit
from cardchat.errors import FailedPrecondition, NotFound, PermissionDenied, Unauthenticated
from cardchat.schema.accounts import AccessToken, AccessTokenHash
from cardchat.schema.documents import MCP_WINDOW, now

if TYPE_CHECKING:
    from cardchat.repo.db import Db

PREFIX = "ccpat_"
#: Random bytes per token: 256 bits, beyond guessing (see the module's docstring).
TOKEN_BYTES = 32
MAX_TOKENS_PER_USER = 20
DEFAULT_PER_MINUTE = ratelimit.DEFAULT_MCP_PER_MINUTE
#: How long a live account is taken as live without asking Auth again.
ACCOUNT_CHECK_TTL = timedelta(seconds=60)
#: Accounts remembered at most (then forgotten all at once): a bounded cache.
_MAX_REMEMBERED = 10_000
_live_until: dict[str, datetime] = {}


#: What a read token is told when it asks to write.
READ_ONLY = "This access token may only read: create one with scope write in Settings to write cards"


@dataclass(frozen=True)
class NewToken:
    token_id: str
    token: str


@dataclass(frozen=True)
class Bearer:
    """Who a request's token acts as, and what it may do."""

    uid: str
    scope: str

    def require_write(self) -> str:
        """The uid, when the token may write; PermissionDenied (READ_ONLY) otherwise."""
        if self.scope != "write":
            raise PermissionDenied(READ_ONLY)
        return self.uid


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def per_minute(env: Mapping[str, str] | None = None) -> int:
    return ratelimit.window_limit(MCP_WINDOW, env)


def create(db: Db, uid: str, label: str, when: datetime | None = None, scope: str = "read") -> NewToken:
    from cardchat.repo import access_tokens as repo

    stamp = when or now()
    token = PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
    token_id = secrets.token_hex(10)
    made = repo.create_within(
        db,
        token_id,
        hash_token(token),
        AccessToken(owner=uid, label=label, created=stamp, scope=scope),
        AccessTokenHash(owner=uid, token_id=token_id, created=stamp, scope=scope),
        MAX_TOKENS_PER_USER,
    )
    if not made:
        raise FailedPrecondition(f"You have {MAX_TOKENS_PER_USER} access tokens; revoke one first")
    return NewToken(token_id, token)


def revoke(db: Db, uid: str, token: str | None = None, token_id: str | None = None) -> None:
    """By the token itself or by its id; someone else's token is not found,
    exactly like a missing one."""
    from cardchat.repo import access_tokens as repo

    found: tuple[str, str] | None = None
    if token is not None:
        digest = hash_token(token)
        stored = repo.get_hash(db, digest)
        found = (str(stored.get("owner")), digest) if stored else None
        token_id = str(stored.get("token_id")) if stored else None
    elif token_id is not None:
        found = repo.find_by_id(db, token_id)
    if found is None or found[0] != uid or token_id is None:
        raise NotFound("No such access token")
    repo.delete(db, token_id, found[1])


def _account_live(uid: str, when: datetime) -> bool:
    """Auth has `uid`, not disabled; a yes is remembered for ACCOUNT_CHECK_TTL."""
    from cardchat.repo import accounts

    until = _live_until.get(uid)
    if until is not None and when < until:
        return True
    if not accounts.is_active(uid):
        _live_until.pop(uid, None)
        return False
    if len(_live_until) >= _MAX_REMEMBERED:
        _live_until.clear()
    _live_until[uid] = when + ACCOUNT_CHECK_TTL
    return True


def authenticate(db: Db, authorization: str | None, when: datetime | None = None, limit: int | None = None) -> str:
    """The uid of bearer(); for a caller that only reads."""
    return bearer(db, authorization, when, limit).uid


def bearer(db: Db, authorization: str | None, when: datetime | None = None, limit: int | None = None) -> Bearer:
    """The user and scope a request's `Authorization: Bearer <token>` acts as, one
    request spent. Unauthenticated for a missing, malformed, unknown or
    revoked token, or one of a deleted or disabled account (the same message
    for all); ResourceExhausted when the user's MCP minute is full, whichever
    of their tokens spent it."""
    from cardchat.repo import access_tokens as repo

    scheme, _, token = (authorization or "").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token.startswith(PREFIX) or len(token) > 200:
        raise Unauthenticated("A valid personal access token is required")
    stamp = when or now()
    per = limit or per_minute()
    found = repo.use(db, hash_token(token), lambda recent: ratelimit.took_slot(recent, stamp, per, "requests"), stamp)
    if found is None or not _account_live(found[0], stamp):
        raise Unauthenticated("A valid personal access token is required")
    return Bearer(*found)
