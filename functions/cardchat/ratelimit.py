"""Per-user rate limits: messages per minute and model tokens per UTC day.

The window arithmetic here is pure (state in, state out) so it is tested
without Firestore; `check_and_record` and `add_tokens` apply it to the
server-only `rate_limits/{uid}` document in one transaction each.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping

from cardchat.errors import ResourceExhausted
from cardchat.repo import ratelimit as repo
from cardchat.schema import RateLimit
from cardchat.schema import now as utc_now

WINDOW = timedelta(minutes=1)
DEFAULT_PER_MINUTE = 10
DEFAULT_DAILY_TOKENS = 2_000_000


@dataclass(frozen=True)
class Limits:
    per_minute: int = DEFAULT_PER_MINUTE
    daily_tokens: int = DEFAULT_DAILY_TOKENS

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Limits":
        env = os.environ if env is None else env
        return cls(
            per_minute=_positive_int(env, "CARDCHAT_RATE_PER_MINUTE", DEFAULT_PER_MINUTE),
            daily_tokens=_positive_int(env, "CARDCHAT_DAILY_TOKENS", DEFAULT_DAILY_TOKENS),
        )


def _positive_int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {raw!r}") from None
    if value < 1:
        raise ValueError(f"{name} must be at least 1, not {value}")
    return value


def _day(now: datetime) -> str:
    return now.astimezone(timezone.utc).date().isoformat()


def _seconds_to_midnight(now: datetime) -> float:
    utc = now.astimezone(timezone.utc)
    midnight = datetime(utc.year, utc.month, utc.day, tzinfo=timezone.utc) + timedelta(days=1)
    return (midnight - utc).total_seconds()


def _wait_text(seconds: float) -> str:
    whole = max(1, math.ceil(seconds))
    return f"{whole} second{'s' if whole != 1 else ''}"


def admit(state: RateLimit, now: datetime, limits: Limits) -> RateLimit:
    """The state after accepting one more message at `now`; raises
    ResourceExhausted (with the seconds to wait) when a limit is reached."""
    today = _day(now)
    tokens = state.day_tokens if state.day == today else 0
    if tokens >= limits.daily_tokens:
        wait = _seconds_to_midnight(now)
        raise ResourceExhausted(
            f"Daily limit of {limits.daily_tokens:,} model tokens reached; "
            f"try again in {_wait_text(wait)} (after midnight UTC).",
            retry_after=wait,
        )
    recent = sorted(t for t in state.recent if now - t < WINDOW)
    if len(recent) >= limits.per_minute:
        # the oldest message that must leave the window for one more to fit
        frees = recent[len(recent) - limits.per_minute] + WINDOW
        wait = max((frees - now).total_seconds(), 0.001)
        raise ResourceExhausted(
            f"Too many messages: at most {limits.per_minute} per minute. "
            f"Try again in {_wait_text(wait)}.",
            retry_after=wait,
        )
    return RateLimit(recent=[*recent, now], day=today, day_tokens=tokens)


def with_tokens(state: RateLimit, tokens: int, now: datetime) -> RateLimit:
    """The state after a generation that used `tokens` (input + output)."""
    today = _day(now)
    base = state.day_tokens if state.day == today else 0
    recent = [t for t in state.recent if now - t < WINDOW]
    return RateLimit(recent=recent, day=today, day_tokens=base + max(0, int(tokens)))


def check_and_record(
    db: Any, uid: str, now: datetime | None = None, limits: Limits | None = None
) -> None:
    """Count one message for `uid` (createChat and postMessage call this)."""
    when = now or utc_now()
    rules = limits or Limits.from_env()
    repo.update(db, uid, lambda state: admit(state, when, rules))


def add_tokens(db: Any, uid: str, tokens: int, now: datetime | None = None) -> None:
    when = now or utc_now()
    repo.update(db, uid, lambda state: with_tokens(state, tokens, when))
