"""The cards a follow-up's turn reads (generation/turn_context.py): its candidates, as read now
and culled again on what was read, each read at most once. A card whose text a warm instance keeps
for its indexed hash and stamp (chat/card_texts.py) costs no read; the rest are read by id."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cardchat.chat.candidates import Pool
    from cardchat.repo.db import Db
    from cardchat.schema.documents import Card

#: Characters a token covers at most when a candidate not read yet is sized by its indexed length
#: (chat/candidates.py's `chars`), in o200k_base tokens: above what prose or code reach, so the
#: estimate errs low. Too low costs a read of a card that then does not fit; too high would
#: leave out one that does.
SIZING_CHARS_PER_TOKEN = 7.0


def estimated_tokens(chars: int, tokenizer: str) -> int:
    """The `tokenizer` tokens of a card's `chars` characters of text, estimated (erring low)."""
    from cardchat.llm.tokens import ESTIMATE_FACTORS

    return int(chars * ESTIMATE_FACTORS.get(tokenizer, 1.0) / SIZING_CHARS_PER_TOKEN)


def known(pool: Pool, ids: Sequence[str]) -> dict[str, Card]:
    """The cards of `ids` known without a read: loose ones as `pool` holds them, those whose text a
    warm instance keeps for their indexed hash. Access is the index's, culled again when packed."""
    return {c: k for c in ids if (k := pool.loose.get(c) or pool.kept_card(c)) is not None}


def read(db: Db, owner: str, pool: Pool, ids: list[str], kept_only: bool = False) -> tuple[dict[str, Card], set[str]]:
    """The cards of `ids` that `owner` may read, as read now (those `known` without a read), and
    those passed over: gone or withdrawn since indexed. `kept_only`: no read, only those kept."""
    from cardchat.access import permissions
    from cardchat.chat import card_texts
    from cardchat.repo import cards as card_repo

    kept = known(pool, ids)
    if kept_only:
        ids = list(kept)
    loaded = card_repo.load_cards(db, [c for c in ids if c not in kept])
    card_texts.remember(loaded.items())
    readable = permissions.readable_cards({**loaded, **kept}, owner, ids)
    return readable, set(ids) - set(readable)


def first_readable(db: Db, owner: str, pool: Pool, outside: list[str], n: int) -> tuple[dict[str, Card], set[str]]:
    """The first `n` of `outside` (ranked ids not in the context) that `owner` may
    read, as `read` reads them, and those passed over: gone or withdrawn."""
    cards: dict[str, Card] = {}
    gone: set[str] = set()
    start = 0
    while start < len(outside) and len(cards) < n:
        chunk = outside[start : start + n - len(cards)]
        readable, passed = read(db, owner, pool, chunk)
        cards |= readable
        gone |= passed
        start += len(chunk)
    return cards, gone
