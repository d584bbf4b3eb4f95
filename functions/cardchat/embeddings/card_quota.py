"""Per-user card quotas: how many of a user's cards hold a vector, and how
many card writes a minute are embedded.

Rules let a signed-in user write as many valid cards as they like; embedding
them is what costs (model time, vectors, the retrieval index's shards). So the
limits are kept where the cost is, by the embedding worker (repo/embed_quota.py),
batch by batch: one aggregation count of the owner's vectors and one read of
their minute's counter per batch, never a scan per write.

- `max_cards` (CARDCHAT_MAX_CARDS_PER_USER): a card that holds no vector yet
  gets one only while the owner has fewer than this many. A card that has one
  keeps its place: its edits are embedded again.
- `writes_per_minute` (CARDCHAT_CARD_WRITES_PER_MINUTE): card writes embedded
  for one owner in one minute of the worker's clock; writes made while a card
  waited in the queue count once.

Over either, the card is kept (its text, tags and access as written; chats and
searches rank it by keywords alone) but not embedded, and
`embedding_skips/{uid}:{card_id}` says why (`reason`: CARD_LIMIT or WRITE_RATE),
for its owner's eyes: the SPA shows "over your card limit". Nothing is lost: a
worker that finds room (the limit raised, cards deleted, a later minute) takes
skipped cards back into the queue when its own is empty, and
`python -m cardchat requeue-skipped` does so at once.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from cardchat.schema.documents import COLLECTIONS, SHARED

#: Owner-readable, server-written: embedding_skips/{uid}:{card_id} {owner, card, reason, at} (skip_id).
EMBEDDING_SKIPS = COLLECTIONS["embedding_skips"]
#: Server-only: card_write_minutes/{uid} {minute, count}, the owner's embedded writes in `minute`.
CARD_WRITE_MINUTES = COLLECTIONS["card_write_minutes"]

_REASONS: dict[str, str] = SHARED["embedding_skip"]["reasons"]
CARD_LIMIT = "card_limit"
WRITE_RATE = "write_rate"
assert {CARD_LIMIT, WRITE_RATE} == set(_REASONS), "common/collections.json embedding_skip.reasons"

#: Above the collections the README measures (100,000 cards of one owner).
DEFAULT_MAX_CARDS = 100_000
#: 100 a second: above what one worker embeds (`scripts/bench embed_burst`), so an import is never cut there.
DEFAULT_WRITES_PER_MINUTE = 6_000


@dataclass(frozen=True)
class CardQuota:
    max_cards: int = DEFAULT_MAX_CARDS
    writes_per_minute: int = DEFAULT_WRITES_PER_MINUTE

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> CardQuota:
        env = os.environ if env is None else env
        return cls(
            max_cards=positive_int_setting(env, "CARDCHAT_MAX_CARDS_PER_USER", DEFAULT_MAX_CARDS),
            writes_per_minute=positive_int_setting(env, "CARDCHAT_CARD_WRITES_PER_MINUTE", DEFAULT_WRITES_PER_MINUTE),
        )


def positive_int_setting(env: Mapping[str, str], name: str, default: int) -> int:
    """A whole-number setting ≥ 1 from the environment (`default` when unset); anything else is
    a ValueError naming the variable, at start-up rather than in the middle of a call. The
    answers' and searches' rate limits (access/ratelimit.py) read theirs the same way."""
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


def skip_id(owner: str, card_id: str) -> str:
    """A skip record's id: in its owner's namespace, so the rules let a user get
    their own (missing ones too) by id and nobody probe another's."""
    return f"{owner}:{card_id}"


def minute_of(now: datetime) -> str:
    """The minute bucket `now` falls in (UTC), as card_write_minutes stores it."""
    return now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M")


@dataclass(frozen=True)
class Gate:
    admitted: list[str]
    skipped: dict[str, str]  # card_id -> reason


def gate(ids: Sequence[str], held: set[str], vectors: int, written: int, quota: CardQuota) -> Gate:
    """Which of `ids` (cards whose text needs a vector, in queue order) are
    embedded: `held` already have a vector (any model), the owner has
    `vectors` in all and `written` embedded writes this minute."""
    room, rate_room = quota.max_cards - vectors, quota.writes_per_minute - written
    admitted: list[str] = []
    skipped: dict[str, str] = {}
    for cid in ids:
        new = cid not in held
        if new and room <= 0:
            skipped[cid] = CARD_LIMIT
        elif rate_room <= 0:
            skipped[cid] = WRITE_RATE
        else:
            admitted.append(cid)
            room -= new
            rate_room -= 1
    return Gate(admitted, skipped)
