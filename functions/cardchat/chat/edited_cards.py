"""Edited cards are current: before each answer, a card whose text changed
since it was packed is packed again, under the number it has.

Telling an edit costs nothing beyond the access re-check (chat/recheck.py):
its one masked read of the packed cards also asks for `updated` (the rules
make every write of a card set it to the time of the write), and the
background's server-only head keeps each card's `updated` as packed
(ChatBackground.card_updated). Only the cards written since are read whole,
and of those only the ones whose text differs from their block (not a tag or
a viewer changed) are re-packed. A card without a stamp (packed by a branch,
a continuation or a follow-up, or before stamps were kept) is read whole once
and compared the same way, so an edit is never missed, only found a little
more dearly.

The new block gets the tokens the old one took plus what the chat's budget
(ChatPrivate.background_length) leaves free; past that it is cut short, and
a card whose edit leaves no room for even a little of its body is withdrawn
as a card its owner may no longer read is (retrieval/repack.py). The
owner's header counts the cards re-packed since the chat was made
(ChatPrivate.cards_changed, a count only the owner reads; the ids stay in the
server-only head, ChatBackground.changed_cards).

Whether a new block is someone else's is told by the card's owner against the
chat's, never by the old block: a background packed before other people's
cards were marked holds them bare, and an edit must not keep them so. The
author keeps the name its old block gave; a bare block's is asked of Auth.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cardchat.retrieval.background import Authors
from cardchat.schema.documents import Card, updated_stamp

if TYPE_CHECKING:
    from cardchat.repo.db import Db
    from cardchat.retrieval.repack import Packed

log = logging.getLogger(__name__)


@dataclass
class Refreshed:
    text: str
    tokens: int
    card_ids: list[str]  # citation order; "" for a card withdrawn here or before
    card_updated: dict[str, int]  # ChatBackground.card_updated after this check
    repacked: list[str] = field(default_factory=list)  # ids packed again with their new text
    left_out: list[str] = field(default_factory=list)  # ids whose new text fits no room: withdrawn

    @property
    def edited(self) -> list[str]:
        return self.repacked + self.left_out


def refresh(
    db: Db,
    owner: str,
    card_ids: list[str],
    text: str,
    tokens: int,
    budget: int,
    tokenizer: str,
    cards: dict[str, Card],
    card_updated: dict[str, int],
) -> Refreshed:
    """`text` (a background of `tokens` tokens citing `card_ids`) with every card of
    `cards` (as read by the re-check, with `updated`) whose text changed since
    `card_updated` packed again under its number, in at most max(`budget`, `tokens`);
    a card not of `owner` (the chat's) as someone else's."""
    from cardchat.repo import cards as card_repo

    stamps = dict(card_updated)
    suspects = [c for c in card_ids if c and c in cards and stamps.get(c) != updated_stamp(cards[c])]
    if not suspects:
        return Refreshed(text, tokens, list(card_ids), stamps)
    whole = card_repo.load_cards(db, suspects)
    for c, card in whole.items():
        stamps[c] = updated_stamp(card)
    try:
        repack = _Repack(text, tokens, max(budget, tokens), tokenizer)
    except ValueError:  # not a background in fit_background's format: no block to put new text in
        log.warning("edited cards: the background is not in card format")
        return Refreshed(text, tokens, list(card_ids), dict(card_updated))
    authors = _authors(owner, repack.packed, card_ids, whole)
    for c in suspects:
        if c in whole:
            repack.card(card_ids.index(c) + 1, whole[c], authors.of(whole[c]))
    if not repack.blocks:
        return Refreshed(text, tokens, list(card_ids), stamps)
    text, tokens = repack.render()
    left = {n for n, b in repack.blocks.items() if b is None}
    kept = ["" if n in left else c for n, c in enumerate(card_ids, start=1)]
    return Refreshed(
        text,
        tokens,
        kept,
        stamps,
        [card_ids[n - 1] for n in sorted(repack.blocks) if n not in left],
        [card_ids[n - 1] for n in sorted(left)],
    )


def _authors(owner: str, packed: dict[int, Packed], card_ids: list[str], cards: dict[str, Card]) -> Authors:
    """Authors of `owner`'s chat knowing the names the blocks of `cards` gave
    their authors; a foreign card's bare block (packed before they were
    marked) has its author's display name asked of Auth."""
    from cardchat.chat.authors import AuthorBook

    named: dict[str, str] = {}
    bare: list[Card] = []
    for c, card in cards.items():
        block = packed.get(card_ids.index(c) + 1)
        if card.owner == owner:
            continue
        if block is not None and block.author:
            named[card.owner] = block.author
        else:
            bare.append(card)
    asked = AuthorBook(owner).authors(bare).names if bare else {}
    return Authors(owner, {**asked, **named})


class _Repack:
    """New blocks for edited cards, each within its old tokens plus what the limit leaves free."""

    def __init__(self, text: str, tokens: int, limit: int, tokenizer: str) -> None:
        from cardchat.retrieval.repack import packed_blocks

        self.text, self.limit, self.tokenizer = text, limit, tokenizer
        self.packed = packed_blocks(text)
        self.free = max(0, limit - tokens)
        self.blocks: dict[int, str | None] = {}
        self.cards: dict[int, tuple[Card, str | None]] = {}  # n → the card and Authors.of it

    def _count(self, block: str | None) -> int:
        from cardchat.llm.tokens import count_tokens

        return count_tokens([block], self.tokenizer)[0] if block else 0

    def card(self, n: int, card: Card, author: str | None) -> None:
        """Card `n`'s new block, if its text changed (a card not in the text, dropped for room, waits);
        `author`: Authors.of the card."""
        from cardchat.retrieval.repack import same_text

        packed = self.packed.get(n)
        if packed is None or same_text(packed, card.title, card.body):
            return
        old = self._count(packed.block)
        self.cards[n] = (card, author)
        self._fit(n, old + self.free)
        self.free -= self._count(self.blocks[n]) - old

    def _fit(self, n: int, room: int) -> None:
        from cardchat.retrieval.repack import fit_block

        card, author = self.cards[n]
        self.blocks[n] = fit_block(n, card.title, card.body, author, room, self.tokenizer)

    def render(self) -> tuple[str, int]:
        """The text with the new blocks, its tokens within the limit: a whole-text count
        above it (tokens merged across blocks) is given back by the last new block."""
        from cardchat.llm.tokens import count_tokens
        from cardchat.retrieval.repack import replace_blocks

        while True:
            text = replace_blocks(self.text, self.blocks)
            tokens = count_tokens([text], self.tokenizer)[0]
            grown = [n for n, b in self.blocks.items() if b is not None]
            if tokens <= self.limit or not grown:
                return text, tokens
            self._fit(grown[-1], self._count(self.blocks[grown[-1]]) - (tokens - self.limit) - 1)
