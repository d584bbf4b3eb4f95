"""Card search during an answer ("look further"): the search_cards tool a chat's model may call
while it answers (providers/tools.py), when its owner turned `Chat.look_further` on.

A search ranks the chat's own source as its owner may read it now, by the machinery per-turn
retrieval uses (turn_context.rank_source), among the cards that share a word with the query,
and hands the model the best ones the background does not hold yet, numbered to be cited as
[n] like the packed ones (a card the chat numbered before keeps its number). The packed
background stays as it was: a search only adds. Per answer at most MAX_CALLS searches of at
most CARDS_PER_CALL cards each, within the room the model's window leaves; a call beyond gets
a result saying the limit is reached.

The queries and results exist only in the exchange with the provider. Once the answer is
complete its found cards join the stored background as the answer's turn additions
(ChatPrivate.context_turns, marked `searched`), so its citations resolve like packed cards'
and a retry of it takes them out again; the owner's answer_usage counts the searches, never
what they were for.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from cardchat.chat.authors import AuthorBook
from cardchat.chat.collection import source_of
from cardchat.chat.packed_cards import packed_owners, packed_stamps
from cardchat.generation.turn_context import rank_source
from cardchat.retrieval.background import card_block, card_numbers
from cardchat.schema.chat_sources import ContextTurn

if TYPE_CHECKING:
    from cardchat.llm.models import ModelSpec
    from cardchat.providers.base import Message
    from cardchat.repo.db import Db
    from cardchat.schema.documents import Card, ChatPrivate

log = logging.getLogger(__name__)

#: Searches one answer may run.
MAX_CALLS = 3
#: New cards one search may add.
CARDS_PER_CALL = 8
FOUND = "Cards found by this search, to cite as [n] like the others:\n\n"
LIMIT_REACHED = f"The search limit of this answer ({MAX_CALLS} searches) is reached: answer with the cards you have."
NOTHING_MATCHED = "No card matched this search: answer with the cards you have, or try other words."
NOTHING_NEW = "Every card that matched this search is already in your background."
NO_ROOM = "The cards that matched do not fit in what is left of the context: answer with the cards you have."
FAILED = "The search failed: answer with the cards you have."


@dataclass(frozen=True)
class Found:
    """A card a search added: its id, citation number, rank among the cards that matched, cosine
    similarity to the query (None when unembedded), its block as the model read it, and whether it
    is another person's card the chat had never numbered."""

    card: str
    n: int
    rank: int
    score: float | None
    block: str
    new_by_other: bool


class LookFurther:
    """The search_cards tool of one answer run: answer `index` of chat `chat_id`, whose context is
    `background` and `private` as the run read them, with `room` tokens it may add."""

    def __init__(
        self, db: Db, chat_id: str, private: ChatPrivate, background: str, spec: ModelSpec, index: int, room: int
    ) -> None:
        from cardchat.repo import chats as chats_repo

        self.db, self.chat_id, self.private, self.spec, self.index = db, chat_id, private, spec, index
        self.room = room
        self.calls = 0  # the model's calls, those past the limit included
        self.searches = 0  # searches run
        self.found: list[Found] = []
        self.cards: dict[str, Card] = {}
        self.card_ids = list(private.card_ids)
        numbered = private.card_ids
        self.present = {numbered[n - 1] for n in card_numbers(background) if 0 < n <= len(numbered)} - {""}
        self.source = chats_repo.get_source(db, chat_id)
        self.book = AuthorBook(private.owner)

    def __call__(self, query: str) -> str:
        self.calls += 1
        if self.calls > MAX_CALLS:
            return LIMIT_REACHED
        self.searches += 1
        try:
            return self._search(query)
        except Exception as e:  # a failed search is the model's to work around, not the answer's end
            log.warning("look further %s: the search failed: %s", self.chat_id, type(e).__name__)
            return FAILED

    def _search(self, query: str) -> str:
        from cardchat.llm.tokens import count_tokens

        if self.source is None or not query:
            return NOTHING_MATCHED
        p = self.private
        ranked = rank_source(
            self.db, p.owner, source_of(self.source), query, "", sorted(self.present), p.excluded_cards, True
        )
        new = [c for c in ranked.ids if c not in self.present and c in ranked.cards][:CARDS_PER_CALL]
        if not new:
            return NOTHING_MATCHED if not ranked.ids else NOTHING_NEW
        authors = self.book.authors(ranked.cards[c] for c in new)
        blocks: list[str] = []
        for c in new:
            card, by = ranked.cards[c], authors.of(ranked.cards[c])
            known = c in self.card_ids
            n = self.card_ids.index(c) + 1 if known else len(self.card_ids) + 1
            block = card_block(n, card.title, card.body, by)
            size = count_tokens([block], self.spec.tokenizer)[0]
            if size > self.room:
                continue
            self.room -= size
            if not known:
                self.card_ids.append(c)
            self.present.add(c)
            self.cards[c] = card
            rank = ranked.ids.index(c) + 1
            self.found.append(Found(c, n, rank, ranked.scores.get(c), block, by is not None and not known))
            blocks.append(block)
        return FOUND + "".join(blocks) if blocks else NO_ROOM

    def keep(self, text: str) -> tuple[str, int, ChatPrivate] | None:
        """The stored context `text` with the found cards appended, written with the owner's record
        of them (the answer's turn in context_turns); None when a search found nothing."""
        from cardchat.llm.tokens import count_tokens
        from cardchat.repo import chats as chats_repo

        if not self.found:
            return None
        p = self.private
        text += "".join(f.block for f in self.found)
        tokens = count_tokens([text], self.spec.tokenizer)[0]
        added = [{"card": f.card, "n": f.n, "rank": f.rank, "score": f.score, "searched": True} for f in self.found]
        turns = [ContextTurn.from_dict(t) for t in p.context_turns]
        mine = next((t for t in turns if t.message_index == self.index), None)
        if mine is None:
            turns.append(ContextTurn(self.index, 0, added))
        else:
            mine.added += added
        stored = chats_repo.write_context(
            self.db,
            self.chat_id,
            text,
            tokens,
            {
                "card_ids": self.card_ids,
                "card_owners": packed_owners(self.card_ids, self.cards, p.card_owners),
                "context_turns": [t.to_dict() for t in turns],
                "cards_packed": len(card_numbers(text)),
                "cards_by_others": p.cards_by_others + sum(f.new_by_other for f in self.found),
            },
            chats_repo.card_stamp_fields(packed_stamps([f.card for f in self.found], self.cards)),
        )
        return text, tokens, replace(p, **stored)


def for_answer(
    db: Db,
    chat_id: str,
    private: ChatPrivate,
    context: tuple[str, int],
    spec: ModelSpec,
    index: int,
    window: list[Message],
) -> LookFurther:
    """The tool of answer `index` of chat `chat_id`, given its `context` (text, tokens) and the
    `window` of messages it is sent with: it may add up to a follow-up's budget, within what
    the window leaves."""
    from cardchat.chat.history_window import turn_budget
    from cardchat.generation.turn_context import window_room

    room = min(turn_budget(spec), window_room(spec, context[1], [m["content"] for m in window]))
    return LookFurther(db, chat_id, private, context[0], spec, index, room)
