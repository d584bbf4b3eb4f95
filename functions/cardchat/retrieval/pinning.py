"""The owner's pins and exclusions applied to a background (chat/pins.py decides which cards).

An excluded card's block leaves the text; its number stays taken, so [n] in an earlier answer still
means that card. A pinned card missing from the text goes in at the end, under the number it already
has (or the next one). To make room within the limit, cards not pinned leave, highest number first:
the latest additions of per-turn retrieval, then the tail of the chat's first ranking. A pinned card
larger than all the room there is is cut short, as the packer cuts its last card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cardchat.llm.tokens import count_tokens, truncate_tokens
from cardchat.retrieval.background import _block, _card_spans, _content, drop_cards
from cardchat.schema.documents import Card

#: Room too small to hold a useful cut of a pinned card (the packer's own floor).
_MIN_USEFUL_TOKENS = 24


@dataclass(frozen=True)
class Pinned:
    """A pinned card and the number it goes in under; `author`: `background.Authors.of` the card."""

    n: int
    card: Card
    author: str | None = None


def repin(
    text: str, excluded: set[int], kept: set[int], missing: Sequence[Pinned], limit: int, tokenizer: str
) -> tuple[str, int]:
    """`text` without the cards numbered `excluded`, with the pinned cards `missing` from it added, in at
    most `limit` tokens where the pins allow it (the cards numbered `kept`, pinned too, never leave); and
    its tokens. ValueError if `text` is not a background."""
    present = {n for n, _, _, _ in _card_spans(text)}
    if excluded & present:
        text = drop_cards(text, excluded & present)
    keep = kept | {p.n for p in missing}
    missing = [p for p in missing if p.n not in present]
    blocks = [_block(p.n, _content(p.card.title, p.card.body, p.author), author=p.author) for p in missing]
    need = sum(count_tokens(blocks, tokenizer)) if blocks else 0
    spans = _card_spans(text)
    tokens = count_tokens([text], tokenizer)[0]
    if tokens + need > limit:
        sizes = count_tokens([text[start:end] for _, start, end, _ in spans], tokenizer) if spans else []
        gone: set[int] = set()
        for (n, _, _, _), size in sorted(zip(spans, sizes), key=lambda s: -s[0][0]):
            if tokens + need <= limit:
                break
            if n not in keep:
                gone.add(n)
                tokens -= size
        text = drop_cards(text, gone)
    for p, block in zip(missing, blocks):
        room = limit - tokens
        fitted = block if count_tokens([block], tokenizer)[0] <= room else _cut(p, room, tokenizer)
        if fitted:
            text += fitted
            tokens += count_tokens([fitted], tokenizer)[0]
    return text, count_tokens([text], tokenizer)[0]


def _cut(p: Pinned, room: int, tokenizer: str) -> str:
    """`p`'s block cut short to `room` tokens, or "" when the room holds nothing useful."""
    overhead = count_tokens([_block(p.n, _content(p.card.title, "", p.author) + "\n", True, p.author)], tokenizer)[0]
    body_room = room - overhead
    while body_room >= _MIN_USEFUL_TOKENS // 2:
        cut = truncate_tokens(p.card.body, body_room, tokenizer).rstrip()
        if not cut:
            return ""
        block = _block(p.n, _content(p.card.title, cut, p.author), True, p.author)
        size = count_tokens([block], tokenizer)[0]
        if size <= room:
            return block
        body_room -= max(1, size - room)
    return ""
