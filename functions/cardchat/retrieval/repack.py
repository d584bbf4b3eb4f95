"""Re-packing cards of a background in place: an edited card's new text under
its old number (chat/edited_cards.py), so an [n] of an earlier answer still
means the same card.

A card's new block may take the tokens its old block took plus what the
chat's budget leaves free; a card that grew past that is cut short
(truncated="true"), as fit_background cuts the last card it packs. One whose
room cannot hold its title and a little of its body is left out, as a
withdrawn card is: stale text must not stand in for what the card says now.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from cardchat.llm.tokens import count_tokens, truncate_tokens
from cardchat.retrieval.background import _CARD_OPEN, _MIN_USEFUL_TOKENS, _block, _card_spans, _content

_AUTHOR = re.compile(r' author="([^"<>\n]*)"')


@dataclass(frozen=True)
class Packed:
    """One <card> block of a background as it stands."""

    n: int
    content: str  # '# title' line and the body, as packed (cut short if truncated)
    truncated: bool
    author: str | None  # the author attribute of another person's card, None for the owner's own
    block: str  # the whole block, opening tag to closing tag


def packed_blocks(text: str) -> dict[int, Packed]:
    """The card blocks of a background made by fit_background, by number."""
    blocks: dict[int, Packed] = {}
    for n, start, end, content in _card_spans(text):
        opening = _CARD_OPEN.match(text, start)
        assert opening is not None  # _card_spans matched it
        author = _AUTHOR.search(opening.group(4) or "")
        blocks[n] = Packed(n, content, bool(opening.group(3)), author.group(1) if author else None, text[start:end])
    return blocks


def same_text(packed: Packed, title: str, body: str) -> bool:
    """Whether the card's text now (`title`, `body`) is what its block holds:
    for a block cut short, whether the card still begins with what was kept."""
    fresh = _content(title, body, packed.author)
    return fresh.startswith(packed.content) if packed.truncated else fresh == packed.content


def fit_block(n: int, title: str, body: str, author: str | None, room: int, tokenizer: str) -> str | None:
    """The card as block `n` in at most `room` tokens: whole, else its body
    cut at a token boundary; None when not even a little of the body fits."""
    whole = _block(n, _content(title, body, author), author=author)
    if count_tokens([whole], tokenizer)[0] <= room:
        return whole
    overhead = count_tokens([_block(n, _content(title, "", author) + "\n", True, author)], tokenizer)[0]
    body_room = room - overhead
    while body_room >= _MIN_USEFUL_TOKENS // 2:
        cut = truncate_tokens(body, body_room, tokenizer).rstrip()
        if not cut:
            return None
        block = _block(n, _content(title, cut, author), True, author)
        tokens = count_tokens([block], tokenizer)[0]
        if tokens <= room:
            return block
        body_room -= max(1, tokens - room)
    return None


def replace_blocks(text: str, blocks: Mapping[int, str | None]) -> str:
    """The background with card n's block replaced by `blocks[n]` (None: left
    out); every other card keeps its block and number."""
    out, pos = [], 0
    for n, start, end, _ in _card_spans(text):
        if n in blocks:
            out.append(text[pos:start])
            out.append(blocks[n] or "")
            pos = end
    return "".join(out) + text[pos:]
