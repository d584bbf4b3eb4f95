"""Per-turn retrieval: every follow-up is grounded in the whole collection.

createChat ranks the chat's cards against the first question only. Before
each later answer (a follow-up, its retry, the edited question of a branch)
the generation run ranks the chat's collection (the card ids or query it was
made from, kept server-only in chat_sources, culled to what its owner may read now)
against the new question read with the previous one, and appends the best
cards not already in the context to the hidden background, within
`turn_budget` tokens and the room the model's window leaves. When the
window is tight, older additions go first, oldest turn first; the original
background stays.

Citation numbers never change: a card keeps its [n] once given (a card
dropped for room and added again gets its old number back), a new card gets
the next one, and ChatPrivate.card_ids grows in that order so the owner's
citation links keep working. The owner's record of each turn
(ChatPrivate.context_turns, chat_sources.ContextTurn) says which cards came in,
with their rank and score; nothing of it reaches a client-readable document.

Ranking runs in the generation run rather than in postMessage: the callable
stays a short transaction, and a retry or a branch takes the same path.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from cardchat.chat.collection import CardSource, source_of
from cardchat.chat.packed_cards import packed_owners, packed_stamps
from cardchat.llm.models import ModelSpec
from cardchat.retrieval.background import OWN_CARDS_ONLY, Authors, card_block, card_numbers, drop_cards
from cardchat.schema.chat_sources import ContextTurn
from cardchat.schema.documents import Card, Chat, ChatPrivate
from cardchat.schema.messages import ChatMessage

if TYPE_CHECKING:
    from cardchat.chat.candidates import Pool
    from cardchat.repo.db import Db

log = logging.getLogger(__name__)

#: The best cards not in the context that one follow-up may add. On the
#: follow-up set (scripts/eval, offline model, 5 % background, a quarter of
#: the window per turn, 3:1) 16 candidates put the answering card in the
#: context for 0.88 of follow-ups, 20 for 0.90 (8 at an eighth of the window: 0.80).
TURN_CANDIDATES = 20
#: Candidates given their indexed length and score, in TURN_CANDIDATES: room for some gone since
#: indexed; one further down is sized as empty, so it is read before it is planned.
SIZED_CANDIDATES = 4
#: Tokens per request kept free beside background, history and answer (provider framing).
MARGIN_TOKENS = 256
#: Additions kept across turns, in per-turn budgets: older ones leave first,
#: so a long chat does not grow its context (and cost) without end.
KEPT_TURN_BUDGETS = 2
#: The follow-up ranked alone counts three times the ranking of it read with
#: the previous question (fused by RRF): the previous question keeps a
#: follow-up such as "and how do I undo that?" on its topic, but ranked with
#: equal weight it pulled a follow-up on a new topic back to the old one (the
#: answering card among the best 10 for 0.59 of follow-ups, against 0.83 alone
#: and 0.84 fused 2:1). 3:1 against 2:1 on the follow-up set's halves: even
#: 0.863 both, odd 0.941 against 0.902 (eval/README.md, "Per-turn retrieval").
QUESTION_WEIGHT = 3.0


def turn_query(question: str, previous: str) -> str:
    """The question read in the light of the conversation: with the previous
    question. The previous answer is left out: it quotes cards already in the
    context and is long enough to drown the question's own words."""
    return f"{question}\n{previous}" if previous else question


def fuse(alone: Sequence[int], with_previous: Sequence[int] | None, n: int) -> list[int]:
    """One order from the follow-up's ranking alone and read with the previous question."""
    from cardchat.retrieval.fusion import rrf

    if with_previous is None:
        return list(alone)
    return rrf([alone, with_previous], [QUESTION_WEIGHT, 1.0], n)


def turn_room(spec: ModelSpec, background_length: int, tokens: int, said: Sequence[str]) -> int:
    """Tokens this turn may add beside a context of `tokens`: what the window
    leaves beside the history `said` (its byte bound) and the answer, and no
    more than keeps the context within the chat's first budget plus
    KEPT_TURN_BUDGETS turns of additions."""
    from cardchat.chat.history_window import turn_budget

    return min(window_room(spec, tokens, said), background_length + KEPT_TURN_BUDGETS * turn_budget(spec) - tokens)


def window_room(spec: ModelSpec, tokens: int, said: Sequence[str]) -> int:
    """Tokens the model's window leaves beside a context of `tokens`, the history `said` (its
    byte bound) and the answer."""
    from cardchat.chat.history_window import MESSAGE_OVERHEAD_TOKENS, byte_bounds, output_reserve

    history = sum(byte_bounds(list(said), spec.tokenizer)) + MESSAGE_OVERHEAD_TOKENS * len(said)
    return spec.context_window - output_reserve(spec) - history - tokens - MARGIN_TOKENS


@dataclass
class Ranked:
    """The chat's collection ranked for a question: card ids best first (every card the
    owner may read), the cards, and each one's cosine similarity (None when unembedded).
    A candidate not in `cards` yet is sized by `chars` (its indexed title and body length)
    and read (`plan_reading`) only when a plan picks it; `pool` is where it is read from."""

    ids: list[str]
    cards: dict[str, Card]
    scores: dict[str, float | None] = field(default_factory=dict)
    chars: dict[str, int] = field(default_factory=dict)
    pool: Pool | None = None


@dataclass
class Plan:
    text: str
    tokens: int
    card_ids: list[str]
    turn: ContextTurn
    by_others: int = 0  # cards of other people given a number for the first time
    #: cards the plan picked by their indexed size, not read yet: to read, then to plan again
    unread: list[str] = field(default_factory=list)


def plan_turn(
    text: str,
    tokens: int,
    card_ids: Sequence[str],
    turns: Sequence[ContextTurn],
    ranked: Ranked,
    index: int,
    room: int,
    budget: int,
    tokenizer: str,
    authors: Authors = OWN_CARDS_ONLY,
    pinned: frozenset[str] = frozenset(),
) -> Plan:
    """The context for answer `index`: `text` (a background of `tokens`
    tokens citing `card_ids`) with the best cards of `ranked` not in it appended, in at most
    min(`budget`, `room`) tokens; `room` is what the window leaves beside
    `text`, and older additions are dropped to make it at least `budget`.
    A redo of answer `index` (a retry) first takes out what its last run added.
    A card not of `authors.owner` goes in marked as someone else's; a `pinned` one never leaves.
    A candidate not in `ranked.cards` is sized by its indexed length: when the plan picks one, it
    comes back in `unread` with nothing added, to be read and planned again."""
    from cardchat.llm.tokens import count_tokens

    ids = list(card_ids)
    numbers = {c: n for n, c in enumerate(ids, start=1) if c}
    ctx = _Context(text, tokens, set(card_numbers(text)), room, tokenizer, {numbers[c] for c in pinned if c in numbers})
    ctx.drop(_redone(turns, index))
    in_context = context_ids(text, ids, turns, index, pinned)
    candidates = [c for c in ranked.ids if c not in in_context][:TURN_CANDIDATES]
    by = {c: authors.of(ranked.cards[c]) for c in candidates if c in ranked.cards}
    sizes = _sizes(candidates, ranked, by, lambda k, c: numbers.get(c, len(ids) + 1 + k), tokenizer)
    dropped: list[int] = []
    for old in (t for t in turns if t.message_index < index):  # oldest first
        if ctx.room >= min(budget, min(sizes, default=0)):
            break
        dropped += ctx.drop({a["n"] for a in old.added})
    chosen = _fitting(candidates, sizes, min(budget, ctx.room))
    unread = [c for c in chosen if c not in ranked.cards]
    if unread:
        return Plan(text, tokens, ids, ContextTurn(index, len(ranked.ids), [], 0, []), unread=unread)
    added: list[dict[str, Any]] = []
    by_others = 0
    for c in chosen:
        if c not in numbers:
            ids.append(c)
            numbers[c] = len(ids)
            by_others += by[c] is not None
        ctx.text += card_block(numbers[c], ranked.cards[c].title, ranked.cards[c].body, by[c])
        added.append({"card": c, "n": numbers[c], "rank": ranked.ids.index(c) + 1, "score": ranked.scores.get(c)})
    turn = ContextTurn(index, len(ranked.ids), added, len(candidates) - len(added), dropped)
    return Plan(ctx.text, count_tokens([ctx.text], tokenizer)[0], ids, turn, by_others)


def _sizes(candidates: list[str], ranked: Ranked, by: dict[str, str | None], number: Any, tokenizer: str) -> list[int]:
    """Each candidate's tokens as a block: counted for a card read, estimated from its indexed
    length (erring low) for one not read yet. Counted with provisional numbers (`number`(k, id):
    a new card's final one is at most this): a digit more or less is noise."""
    from cardchat.generation.turn_cards import estimated_tokens
    from cardchat.llm.tokens import count_tokens

    if not candidates:
        return []
    read = [(k, c) for k, c in enumerate(candidates) if c in ranked.cards]
    blocks = [card_block(number(k, c), ranked.cards[c].title, ranked.cards[c].body, by[c]) for k, c in read]
    *counts, framing = count_tokens(blocks + [card_block(number(0, ""), "", "")], tokenizer)
    counted = {c: n for (_, c), n in zip(read, counts)}
    return [counted.get(c) or framing + estimated_tokens(ranked.chars.get(c, 0), tokenizer) for c in candidates]


def _fitting(candidates: list[str], sizes: list[int], allowed: int) -> list[str]:
    """The candidates, best first, that fit `allowed` tokens one after another (one too large is passed over)."""
    chosen = []
    for c, size in zip(candidates, sizes):
        if size <= allowed:
            chosen.append(c)
            allowed -= size
    return chosen


def _redone(turns: Sequence[ContextTurn], index: int) -> set[int]:
    """The numbers a redo of answer `index` (a retry) takes out first: what its last run added."""
    return {a["n"] for t in turns if t.message_index == index for a in t.added}


def context_ids(
    text: str, card_ids: Sequence[str], turns: Sequence[ContextTurn], index: int, pinned: frozenset[str]
) -> set[str]:
    """The cards of `card_ids` that the turn of answer `index` finds in `text` (a background citing
    them): those whose blocks it holds, less what a redo of `index` takes out (a `pinned` one stays).
    The turn adds only cards outside these, so only those are read."""
    kept = {n for n, c in enumerate(card_ids, start=1) if c and c in pinned}
    present = set(card_numbers(text)) - (_redone(turns, index) - kept)
    return {card_ids[n - 1] for n in present if 0 < n <= len(card_ids) and card_ids[n - 1]}


@dataclass
class _Context:
    """A background being changed: its text, tokens, card numbers present,
    and the room the window leaves beside it."""

    text: str
    tokens: int
    present: set[int]
    room: int
    tokenizer: str
    kept: set[int] = field(default_factory=set)  # pinned: never dropped

    def drop(self, numbers: set[int]) -> list[int]:
        from cardchat.llm.tokens import count_tokens

        gone = (numbers & self.present) - self.kept
        if gone:
            self.text = drop_cards(self.text, gone)
            before, self.tokens = self.tokens, count_tokens([self.text], self.tokenizer)[0]
            self.room += before - self.tokens
            self.present -= gone
        return sorted(gone)


def rank_source(
    db: Db,
    owner: str,
    source: CardSource,
    question: str,
    previous: str = "",
    context_ids: Sequence[str] = (),
    excluded: Sequence[str] = (),
    matching_only: bool = False,
    read: bool = True,
) -> Ranked:
    """The collection's cards `owner` may read now (its ids, or its query resolved
    again: cards added since included), ranked for `question` read with
    the `previous` one (fuse) by the hybrid ranker createChat uses, over the
    retrieval index (chat/candidates.py). Cards without a stored vector are
    ranked by BM25 alone (no embedding on the spot: the answer is waiting).
    Only the cards a turn can add are read: the best TURN_CANDIDATES outside
    the context (`context_ids`, whose citations the chat already holds in
    ChatPrivate), further ones for those gone or withdrawn since indexed; not `read`: only
    those kept without a read, the others sized by their indexed length (`plan_reading`).
    A card the question names by title comes first (chat/named_cards.py); an
    `excluded` one never comes. `matching_only`: only cards that share a word with
    the question (a search's, generation/look_further.py), not the whole collection in order."""
    from cardchat.chat import candidates
    from cardchat.chat.named_cards import named_first
    from cardchat.embeddings import get_embedder
    from cardchat.generation import turn_cards

    pool = candidates.resolve_source(db, owner, source, named=question)
    if matching_only:
        pool = candidates.matching(pool, question)
    embedder = get_embedder()
    query_vec = embedder.embed_query(question)
    alone = pool.rank(question, query_vec).order
    both = turn_query(question, previous)
    with_previous = pool.rank(both, embedder.embed_query(both)).order if previous else None
    pool, order = named_first(db, owner, pool, question, fuse(alone, with_previous, len(pool)))
    left_out = set(excluded)
    ids = [pool.ids[i] for i in order if pool.ids[i] not in left_out]
    in_context = set(context_ids)
    outside = [c for c in ids if c not in in_context]
    if read:
        cards, gone = turn_cards.first_readable(db, owner, pool, outside, TURN_CANDIDATES)
    else:
        cards, gone = turn_cards.read(db, owner, pool, outside[:TURN_CANDIDATES], kept_only=True)
    sized = set(cards) if read else set(outside[: SIZED_CANDIDATES * TURN_CANDIDATES])
    sims, has = pool.similarities(query_vec) if len(pool) else np.zeros(0), pool.has_vector()
    scores = {c: round(float(sims[i]), 4) if has[i] else None for i, c in enumerate(pool.ids) if c in sized}
    chars = {} if read else {c: int(pool.chars[i]) for i, c in enumerate(pool.ids) if c in sized}
    return Ranked([c for c in ids if c not in gone], cards, scores, chars, pool)


def plan_reading(db: Db, owner: str, ranked: Ranked, plan_with: Callable[[Ranked], Plan]) -> tuple[Plan, Ranked]:
    """The plan `plan_with(ranked)` makes once it picks no card unread, and `ranked` by then: each round
    reads what it picked by indexed size (those `owner` may still read join, sized now by their text;
    those gone or withdrawn leave, so the next candidate takes their place). Nothing unread is packed."""
    from cardchat.generation import turn_cards

    while (plan := plan_with(ranked)).unread:
        assert ranked.pool is not None
        readable, gone = turn_cards.read(db, owner, ranked.pool, plan.unread)
        ranked = replace(ranked, ids=[c for c in ranked.ids if c not in gone], cards={**ranked.cards, **readable})
    return plan, ranked


@dataclass
class Context:
    """The background an answer is given, its tokens, and the chat's ChatPrivate as stored with it."""

    text: str
    tokens: int
    private: ChatPrivate


def context_for(
    db: Db, chat_id: str, chat: Chat, history: Sequence[ChatMessage], index: int, spec: ModelSpec
) -> Context:
    """The background answer `index` is given: the stored one less what its owner may no longer
    read (chat/recheck.py), with its owner's pins and exclusions (chat/pins.py), plus this turn's
    cards (ground_turn). ChatPrivate is read once, here: each step is handed it and hands on
    what it stored, so the run ends with the card ids its answer cites by."""
    from cardchat.chat import pins
    from cardchat.chat.recheck import current_background
    from cardchat.repo import chats as chats_repo

    private = ChatPrivate.from_dict(chats_repo.get_private(db, chat_id) or {})
    text, tokens, private = current_background(db, chat_id, chat, private, spec.tokenizer)
    text, tokens, private = pins.apply(db, chat_id, private, text, tokens, spec.tokenizer) or (text, tokens, private)
    grounded = ground_turn(db, chat_id, private, text, tokens, history, index, spec)
    return Context(*(grounded or (text, tokens, private)))


def ground_turn(
    db: Db,
    chat_id: str,
    private: ChatPrivate,
    text: str,
    tokens: int,
    history: Sequence[ChatMessage],
    index: int,
    spec: ModelSpec,
) -> tuple[str, int, ChatPrivate] | None:
    """The context of answer `index` with this turn's additions, stored
    before the answer starts, and `private` as stored with it; None when there
    is nothing to rank (the first answer of a chat, whose background was ranked
    for its question; a chat made before sources were kept)."""
    from cardchat.chat.authors import AuthorBook
    from cardchat.chat.history_window import history_before, turn_budget
    from cardchat.repo import chats as chats_repo

    source = chats_repo.get_source(db, chat_id)
    if source is None or int(source.get("ranked_for", 1)) == index:
        return None
    said = history_before(history, index)
    questions = [m["content"] for m in said if m["role"] == "user"]
    if not questions:
        return None
    asked, before = questions[-1], "".join(questions[-2:-1])
    turns = [ContextTurn.from_dict(t) for t in private.context_turns]
    pinned = frozenset(private.pinned_cards)
    present = context_ids(text, private.card_ids, turns, index, pinned)
    ranked = rank_source(
        db, private.owner, source_of(source), asked, before, list(present), private.excluded_cards, read=False
    )
    room = turn_room(spec, private.background_length, tokens, [m["content"] for m in said])
    book, budget = AuthorBook(private.owner), turn_budget(spec)

    def plan_with(r: Ranked) -> Plan:
        authors = book.authors(r.cards.values())
        return plan_turn(text, tokens, private.card_ids, turns, r, index, room, budget, spec.tokenizer, authors, pinned)

    try:
        plan, ranked = plan_reading(db, private.owner, ranked, plan_with)
    except ValueError:  # not a background in fit_background's format: nothing to append to
        log.warning("turn context %s: the background is not in card format", chat_id)
        return None
    kept = [t.to_dict() for t in turns if t.message_index < index] + [plan.turn.to_dict()]
    stored = chats_repo.write_context(
        db,
        chat_id,
        plan.text,
        plan.tokens,
        {
            "card_ids": plan.card_ids,
            "card_owners": packed_owners(plan.card_ids, ranked.cards, private.card_owners),
            "context_turns": kept,
            "cards_packed": len(card_numbers(plan.text)),
            "cards_by_others": private.cards_by_others + plan.by_others,
        },
        chats_repo.card_stamp_fields(packed_stamps([a["card"] for a in plan.turn.added], ranked.cards)),
    )
    return plan.text, plan.tokens, replace(private, **stored)
