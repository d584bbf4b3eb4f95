"""Per-user rate limits: messages per minute and model tokens per UTC day.

Tokens are reserved, not just counted. Admitting an answer (createChat,
postMessage, retryMessage, branchChat) takes a message slot and reserves a
bound on what the answer can cost (background + history bound + output
reserve) in the same transaction as the call's own checks and writes, so a
refused call writes nothing and two racing calls cannot both fit. The run
that pays for the answer settles its reservation exactly once: with the
provider's usage, or our tokenizer's estimate when it gave none (failed,
cut off, superseded). Title calls are charged as they happen.

Where a reservation lives: in the server-only `rate_limits/{uid}` document,
keyed by (answer's message id, attempt). Settling a key that is not there
changes nothing, which makes a duplicate trigger delivery, or a run that woke
up after its reservation expired, harmless.

Day boundary: `day_tokens` belongs to one UTC day and restarts at zero; open
reservations do not, because they are charged to the day they settle in (an
answer reserved at 23:59 and finished at 00:01 counts for the new day). A
reservation older than HOLD_TTL can no longer be settled by a live run (the
stub's ready lease plus the engine's time limit have passed): it is charged
in full, our upper bound for a run that died after reaching the provider.

The arithmetic is pure (state in, state out) and tested without Firestore;
the repo applies it inside the callers' transactions.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from cardchat.embeddings.card_quota import positive_int_setting
from cardchat.errors import ResourceExhausted
from cardchat.repo import ratelimit as repo
from cardchat.schema.accounts import RateLimit, TokenReservation
from cardchat.schema.documents import PIN_WINDOW, SEARCH_WINDOW
from cardchat.schema.documents import now as utc_now

if TYPE_CHECKING:
    from cardchat.repo.db import Db

WINDOW = timedelta(minutes=1)
DEFAULT_PER_MINUTE = 10
DEFAULT_DAILY_TOKENS = 2_000_000
#: How long a reservation waits to be settled: the stub's ready lease (120 s,
#: turns.READY_LEASE), generateAnswer's 540 s timeout and a margin.
HOLD_TTL = timedelta(minutes=15)
#: The wait named when open reservations (answers still being written) are
#: what is in the way: they usually settle well within it.
HELD_RETRY_S = 30.0


@dataclass(frozen=True)
class Limits:
    per_minute: int = DEFAULT_PER_MINUTE
    daily_tokens: int = DEFAULT_DAILY_TOKENS
    #: The caller's own API key pays (access/own_keys.py): the minute's slots
    #: still apply, the deployment's daily cap does not and nothing is reserved.
    own_key: bool = False

    def on_own_key(self) -> Limits:
        return replace(self, own_key=True)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Limits:
        env = os.environ if env is None else env
        return cls(
            per_minute=positive_int_setting(env, "CARDCHAT_RATE_PER_MINUTE", DEFAULT_PER_MINUTE),
            daily_tokens=positive_int_setting(env, "CARDCHAT_DAILY_TOKENS", DEFAULT_DAILY_TOKENS),
        )


def _day(now: datetime) -> str:
    return now.astimezone(UTC).date().isoformat()


def _seconds_to_midnight(now: datetime) -> float:
    utc = now.astimezone(UTC)
    midnight = datetime(utc.year, utc.month, utc.day, tzinfo=UTC) + timedelta(days=1)
    return (midnight - utc).total_seconds()


def _wait_text(seconds: float) -> str:
    whole = max(1, math.ceil(seconds))
    return f"{whole} second{'s' if whole != 1 else ''}"


def held(state: RateLimit) -> int:
    return sum(r.tokens for r in state.reservations)


def current(state: RateLimit, now: datetime) -> RateLimit:
    """The state as of `now`: the day's count restarted on a new day, old
    message times out of the window, expired reservations charged in full."""
    today = _day(now)
    used = state.day_tokens if state.day == today else 0
    live = [r for r in state.reservations if now - r.created < HOLD_TTL]
    used += sum(r.tokens for r in state.reservations if now - r.created >= HOLD_TTL)
    recent = sorted(t for t in state.recent if now - t < WINDOW)
    return RateLimit(recent=recent, day=today, day_tokens=used, reservations=live)


def admission(uid: str, now: datetime, limits: Limits, hold: TokenReservation | None = None) -> repo.Ledger:
    """`uid`'s admission of one more message at `now` (admit), for the transaction that writes
    the call's documents to apply beside them: refused, it writes nothing."""
    return repo.Ledger(uid, lambda state: admit(state, now, limits, hold))


def admit(state: RateLimit, now: datetime, limits: Limits, hold: TokenReservation | None = None) -> RateLimit:
    """The state after accepting one more message at `now` and reserving
    `hold`; raises ResourceExhausted (with the seconds to wait) when a limit
    is reached. A bound larger than the whole day's cap is reserved as the
    cap: such a chat can run alone on a fresh day, and is charged in full."""
    state = current(state, now)
    if limits.own_key:
        hold = None
    # a retry of an answer no run ever took replaces that answer's reservation
    others = [r for r in state.reservations if hold is None or (r.message, r.attempt) != (hold.message, hold.attempt)]
    need = 0 if hold is None else min(max(0, hold.tokens), limits.daily_tokens)
    used, holding = state.day_tokens, sum(r.tokens for r in others)
    if limits.own_key:
        pass  # the deployment's daily cap is not theirs to keep
    elif used + need > limits.daily_tokens or (hold is None and used >= limits.daily_tokens):
        wait = _seconds_to_midnight(now)
        left = max(0, limits.daily_tokens - used)
        raise ResourceExhausted(
            f"Daily limit of {limits.daily_tokens:,} model tokens reached ({left:,} left today, "
            f"this answer may need {need:,}); try again in {_wait_text(wait)} (after midnight UTC).",
            retry_after=wait,
        )
    elif used + holding + need > limits.daily_tokens:
        raise ResourceExhausted(
            f"{holding:,} of your {limits.daily_tokens:,} daily model tokens are held by answers still "
            f"being written; try again when they finish (in about {_wait_text(HELD_RETRY_S)}).",
            retry_after=HELD_RETRY_S,
        )
    recent = state.recent
    if len(recent) >= limits.per_minute:
        # the oldest message that must leave the window for one more to fit
        frees = recent[len(recent) - limits.per_minute] + WINDOW
        wait = max((frees - now).total_seconds(), 0.001)
        raise ResourceExhausted(
            f"Too many messages: at most {limits.per_minute} per minute. Try again in {_wait_text(wait)}.",
            retry_after=wait,
        )
    kept = others + ([replace(hold, tokens=need, created=now)] if hold is not None else [])
    return replace(state, recent=[*recent, now], reservations=kept)


def settle(state: RateLimit, message: str, attempt: int, used: int, now: datetime) -> RateLimit:
    """The state after the run of (`message`, `attempt`) used `used` tokens:
    its reservation is replaced by the real count. Without that reservation
    (settled already, expired and charged, or made before reservations
    existed) nothing changes: a second settlement must never charge twice."""
    state = current(state, now)
    key = (message, attempt)
    if not any((r.message, r.attempt) == key for r in state.reservations):
        return state
    return replace(
        state,
        day_tokens=state.day_tokens + max(0, int(used)),
        reservations=[r for r in state.reservations if (r.message, r.attempt) != key],
    )


def charged(state: RateLimit, tokens: int, now: datetime) -> RateLimit:
    """The state after a call that was not reserved for (a chat's title)."""
    state = current(state, now)
    return replace(state, day_tokens=state.day_tokens + max(0, int(tokens)))


# --- on the store --------------------------------------------------------------


def check(db: Db, uid: str, tokens: int, now: datetime, limits: Limits) -> None:
    """Refuse now, writing nothing, what admit would refuse: for calls that do
    expensive work (ranking, copying a history) before their own transaction
    admits them for real."""
    admit(repo.get(db, uid), now, limits, TokenReservation(message="", attempt=0, tokens=tokens, created=now))


def reconcile(db: Db, uid: str, message: str, attempt: int, used: int, now: datetime | None = None) -> None:
    when = now or utc_now()
    repo.update(db, uid, lambda state: settle(state, message, attempt, used, when))


def charge(db: Db, uid: str, tokens: int, now: datetime | None = None) -> None:
    when = now or utc_now()
    repo.update(db, uid, lambda state: charged(state, tokens, when))


# --- windows of calls that make no answer ---------------------------------------

#: A user's searches (searchCards) and MCP requests each have their own minute,
#: apart from the answers' slots: the Cards page searches as its owner types,
#: which must not use up the slots of their next chat. Per user, whatever the
#: token: a user's MCP clients share one budget. The names: documents.SEARCH_WINDOW, MCP_WINDOW.
DEFAULT_SEARCHES_PER_MINUTE = 30
DEFAULT_MCP_PER_MINUTE = 60
#: pinCard and excludeCard share one minute (documents.PIN_WINDOW): each writes the chat's
#: chat_private, which a script must not be able to rewrite without end.
DEFAULT_PINS_PER_MINUTE = 30


def window_limit(name: str, env: Mapping[str, str] | None = None) -> int:
    """Calls a minute of the window `name` (CARDCHAT_SEARCH_RATE_PER_MINUTE, CARDCHAT_MCP_RATE_PER_MINUTE,
    CARDCHAT_PIN_RATE_PER_MINUTE)."""
    env = os.environ if env is None else env
    if name == SEARCH_WINDOW:
        return positive_int_setting(env, "CARDCHAT_SEARCH_RATE_PER_MINUTE", DEFAULT_SEARCHES_PER_MINUTE)
    if name == PIN_WINDOW:
        return positive_int_setting(env, "CARDCHAT_PIN_RATE_PER_MINUTE", DEFAULT_PINS_PER_MINUTE)
    return positive_int_setting(env, "CARDCHAT_MCP_RATE_PER_MINUTE", DEFAULT_MCP_PER_MINUTE)


def took_slot(recent: list[datetime], now: datetime, per_minute: int, what: str) -> list[datetime]:
    """The window's times after one more call at `now`; ResourceExhausted
    (naming `what`, with the seconds to wait) when the minute is full."""
    try:
        return admit(RateLimit(recent=recent), now, Limits(per_minute=per_minute).on_own_key()).recent
    except ResourceExhausted as e:
        raise ResourceExhausted(
            f"Too many {what}: at most {per_minute} a minute. Try again in {_wait_text(e.retry_after)}.", e.retry_after
        ) from None


def spend(db: Db, uid: str, name: str, what: str, now: datetime | None = None, per_minute: int | None = None) -> None:
    """One call of `uid` in the window `name` (SEARCH_WINDOW, MCP_WINDOW), or ResourceExhausted, writing nothing."""
    when = now or utc_now()
    limit = per_minute or window_limit(name)
    repo.spend_window(db, uid, name, lambda recent: took_slot(recent, when, limit, what))


def release_untaken(db: Db, uid: str, chat_id: str, now: datetime | None = None) -> None:
    """Before a chat is deleted: an answer no run has taken yet never will
    (its message goes), so its reservation is released rather than left to
    expire and be charged in full. A run already going settles its own."""
    from cardchat.repo import messages as messages_repo

    for message_id, msg in messages_repo.chat_messages(db, chat_id):
        if msg.role == "assistant" and msg.status == "ready":
            reconcile(db, uid, message_id, msg.attempts + 1, 0, now)
