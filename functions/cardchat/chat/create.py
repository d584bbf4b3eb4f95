"""createChat: a conversation that appears to be with a whole collection.

Cull the cards the caller may not view, rank the rest against the first
message, pack the best into the model's budget as a hidden background, and
write chat + background + first messages atomically. The caller learns the
chat id and counts, never which requested ids exist or what the cards say.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from cardchat.access import permissions, ratelimit
from cardchat.chat import saved_collections
from cardchat.chat.collection import CardSource
from cardchat.chat.history_window import token_bound
from cardchat.chat.packed_cards import packed_owners, packed_stamps
from cardchat.chat.turns import question_and_stub, start_answers
from cardchat.errors import InvalidArgument
from cardchat.ids import first_message_id, new_chat_id
from cardchat.llm import models
from cardchat.parsing.requests import CreateChatRequest
from cardchat.schema.accounts import TokenReservation
from cardchat.schema.chat_sources import ChatSource
from cardchat.schema.documents import Card, Chat, ChatBackground, ChatPrivate, now

if TYPE_CHECKING:
    from cardchat.chat.candidates import Pool
    from cardchat.embeddings.base import Embedder
    from cardchat.repo.db import Db
    from cardchat.retrieval.background import Authors, Background

#: Tokens a provider adds around the system text and one user turn.
QUESTION_OVERHEAD = 64
#: Cards without a fresh embedding are embedded on the spot, those BM25 likes best for the question
#: first, in batches of EMBED_BATCH until this many or until EMBED_BUDGET_S has gone (no batch starts
#: that would end past it, judging by the one before; with no time at all, not even the first). MiniLM
#: embeds few card texts a second on two cores, fewer while a backfill shares them: a budget of "at
#: least one batch of 16" made createChat wait many seconds on `scripts/dev` right after start, so
#: batches are small (two cards) and the budget bounds the wait. The rest are ranked by BM25 alone (see
#: retrieval) and counted in `cards_unranked`; the embedCard trigger and `cardchat backfill` are what
#: keep a collection embedded.
EMBED_ON_THE_SPOT = 64
EMBED_BATCH = 2
EMBED_BUDGET_S = 0.3
#: A background this full of its budget needs no further cards read (the packer reaches ~0.99).
FULL = 0.97


@dataclass(frozen=True)
class SelectionTimings:
    """Milliseconds per step of choosing a background, each from the end of the one before."""

    resolve: float  # the source resolved to the caller's visible candidates
    embed: float  # candidates without a vector embedded on the spot, and the question
    rank: float
    load_and_fit: float  # the best-ranked cards read and packed into the budget


@dataclass(frozen=True)
class CreateChatTimings:
    """createChat's steps in milliseconds, each from the end of the one before (the endpoint logs
    them, the benchmarks print them): a renamed step is a type error in every reader."""

    check: float  # the rate-limit check before any ranking work
    resolve: float
    embed: float
    rank: float
    load_and_fit: float
    write: float  # the transaction writing the chat, its background and first messages

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


@dataclass(frozen=True)
class CreateChatResult:
    chat_id: str
    timings: CreateChatTimings
    #: why the chosen source held no card (collection_query.OWNER_HAS_NO_PUBLIC_CARDS), else None
    empty_reason: str | None = None

    def answer(self) -> dict[str, Any]:
        """createChat's answer: the chat's id, and `empty_reason` when there is one."""
        return {"chat_id": self.chat_id, **({"empty_reason": self.empty_reason} if self.empty_reason else {})}


def background_budget(spec: models.ModelSpec, fraction: float, question: str) -> int:
    """fraction × the window, but never so much that the first question and
    the answer's reserve no longer fit beside it (at 100 % every answer would
    fail with the context too small, and so would every retry)."""
    from cardchat.chat.history_window import output_reserve
    from cardchat.llm.tokens import count_tokens

    room = spec.context_window - output_reserve(spec) - count_tokens([question], spec.tokenizer)[0] - QUESTION_OVERHEAD
    return max(0, min(int(fraction * spec.context_window), room))


def create_chat(
    db: Db, uid: str, req: CreateChatRequest, when: datetime | None = None, limits: ratelimit.Limits | None = None
) -> CreateChatResult:
    """Everything after parsing and authorisation (see main.createChat). The
    rate-limit slot and token reservation are taken in the transaction that
    writes the chat; a caller who could not be admitted even for the question
    alone is refused before the ranking work, with nothing written."""
    clock = _Stopwatch()
    saved = saved_collections.resolve(db, uid, req) if req.collection_id is not None else None
    req = saved.request if saved is not None else req
    spec = models.spec_of(req.model)
    assert spec is not None  # parsed: parsing.requests.create_chat
    stamp = when or now()
    rules = limits or ratelimit.Limits.from_env()
    ratelimit.check(db, uid, token_bound(spec, 0, [req.initial_message]), stamp, rules)
    checked = clock.lap()
    chosen = select_background(
        db,
        uid,
        req.source,
        req.initial_message,
        spec,
        req.background_fraction,
        req.collection.description,
        saved.instructions if saved is not None else "",
        req.pinned_card_ids,
    )
    clock.lap()  # the selection timed itself
    chat_id = new_chat_id()
    chat, private = _chat_documents(uid, req, chosen, stamp)
    # What follow-ups rank (turn_context.py): the query itself, else the ids the caller could read.
    query = req.query.to_dict() if req.query is not None else None
    source = ChatSource(chat_id, uid, [] if query else chosen.visible, created=stamp, collection_query=query)
    _write(db, chat_id, chat, private, chosen, spec, req.initial_message, stamp, rules, source)
    t = chosen.timings
    steps = CreateChatTimings(
        check=checked, resolve=t.resolve, embed=t.embed, rank=t.rank, load_and_fit=t.load_and_fit, write=clock.lap()
    )
    return CreateChatResult(chat_id, steps, chosen.empty_reason)


@dataclass
class Selection:
    """What culling, ranking and fitting chose for one caller."""

    background: Background
    visible: list[str]  # the candidates the caller may view, in request (or index) order
    cards: dict[str, Card]  # the cards read to pack the background (the best-ranked ones)
    budget: int  # the background's target, in tokens
    unranked: int  # visible cards ranked by BM25 alone (no vector in time)
    authors: Authors  # how the background names the cards of people other than the caller
    timings: SelectionTimings
    empty_reason: str | None = None  # why the source held nothing (candidates.Pool.empty_reason)
    pinned: list[str] = field(default_factory=list)  # the pinned cards the caller may read, first in the background

    def cards_by_others(self, card_ids: list[str]) -> int:
        """How many of `card_ids` (read for the background) are someone else's."""
        return self.authors.foreign([self.cards[c] for c in card_ids if c in self.cards])


def select_background(
    db: Db,
    uid: str,
    source: CardSource,
    question: str,
    spec: models.ModelSpec,
    fraction: float,
    description: str,
    instructions: str = "",
    pinned: Sequence[str] = (),
) -> Selection:
    """Resolve `source` (ids or a query) to the cards `uid` may view, rank them
    against `question` over the retrieval index (chat/candidates.py), read
    and fit the best into `fraction` of `spec`'s window, after the owner's
    `instructions` of a saved collection (chat/saved_collections.py). The `pinned`
    cards `uid` may read go first (chat/pins.py), then those the question names by
    title (chat/named_cards.py). Shared by createChat and continueChat
    (chat/continuation.py), each timing its steps."""
    # Heavy modules load here, not when the endpoint module is imported.
    from cardchat.chat import candidates, pins
    from cardchat.chat.authors import AuthorBook
    from cardchat.chat.named_cards import named_first
    from cardchat.embeddings import get_embedder

    clock = _Stopwatch()
    embedder = get_embedder()
    pool = candidates.resolve_source(db, uid, source, named=question)
    resolved = clock.lap()
    pool = _embed_missing(db, uid, embedder, pool, question)
    query_vec = embedder.embed_query(question)
    embedded = clock.lap()
    pool, order = named_first(db, uid, pool, question, pool.rank(question, query_vec).order)
    first = pins.readable(db, uid, pinned)
    ranked_ms = clock.lap()
    budget = background_budget(spec, fraction, question)
    margin = 1.15  # the packer reads ~1.08 times the room in characters; FETCH_SLACK covers its tail scan
    book = AuthorBook(uid)
    while True:  # cards denser in tokens than the estimate: read further down the ranking and fit again
        ranked, everything = candidates.packed_cards(db, uid, pool, order, budget, margin)
        ranked = list(first.items()) + [(c, k) for c, k in ranked if c not in first]
        authors = book.authors(c for _, c in ranked)
        bg = _fit(ranked, budget, spec, description, authors, instructions)
        if everything or bg.tokens >= FULL * budget:
            break
        margin *= 2
    timings = SelectionTimings(resolve=resolved, embed=embedded, rank=ranked_ms, load_and_fit=clock.lap())
    unranked = int((~pool.has_vector()).sum())
    return Selection(bg, pool.ids, dict(ranked), budget, unranked, authors, timings, pool.empty_reason, list(first))


class _Stopwatch:
    """Milliseconds since the last lap (or the start)."""

    def __init__(self) -> None:
        self._clock = time.perf_counter()

    def lap(self) -> float:
        now = time.perf_counter()
        ms, self._clock = round((now - self._clock) * 1000, 1), now
        return ms


def _embed_missing(db: Db, uid: str, embedder: Embedder, pool: Pool, question: str) -> Pool:
    """Embed (and store) candidates without a fresh vector, best BM25 match first, within
    EMBED_ON_THE_SPOT and EMBED_BUDGET_S; the pool ranks them with what it made."""
    from cardchat.access import permissions
    from cardchat.chat.candidates import with_vectors
    from cardchat.embeddings.text import embeddable_and_hash
    from cardchat.repo import cards as card_repo
    from cardchat.repo import embeddings as emb_repo

    has = pool.has_vector()
    if has.all():
        return pool
    order = pool.rank(question, None).order if int((~has).sum()) > EMBED_BATCH else range(len(pool))
    missing = [pool.ids[i] for i in order if not has[i]][:EMBED_ON_THE_SPOT]
    until, last = time.perf_counter() + EMBED_BUDGET_S, 0.0
    if until - time.perf_counter() <= 0:
        return pool
    need = [c for c in missing if c not in pool.loose]
    cards = {**permissions.readable_cards(card_repo.load_cards(db, need), uid, need), **pool.loose}
    # Stored since the index was written (a trigger not through yet, an earlier call's on-the-spot work).
    hashes = {c: embeddable_and_hash(cards[c].title, cards[c].body)[1] for c in missing if c in cards}
    vectors = emb_repo.load_embeddings(db, hashes, embedder.model_id)
    missing = [c for c in missing if c not in vectors]
    for start in range(0, len(missing), EMBED_BATCH):
        began = time.perf_counter()
        if began + last > until:  # would end past the budget, judging by the batch before
            break
        batch = {c: cards[c] for c in missing[start : start + EMBED_BATCH] if c in cards}
        vectors.update(emb_repo.embed_and_store(db, batch, embedder))
        last = time.perf_counter() - began
    return with_vectors(db, uid, pool, cards, vectors)


def _fit(
    ranked: list[tuple[str, Card]],
    budget: int,
    spec: models.ModelSpec,
    description: str,
    authors: Authors,
    instructions: str,
) -> Background:
    from cardchat.retrieval import background

    try:
        return background.fit_background(ranked, budget, spec.tokenizer, description, authors, instructions)
    except ValueError:  # the budget cannot even hold the preamble
        raise InvalidArgument("background_percentage: too small for this model to hold any card") from None


def _write(
    db: Db,
    chat_id: str,
    chat: Chat,
    private: ChatPrivate,
    chosen: Selection,
    spec: models.ModelSpec,
    question: str,
    stamp: datetime,
    rules: ratelimit.Limits,
    source: ChatSource,
) -> None:
    """Chat, background and the first two messages in one transaction with the rate-limit slot and the
    first answer's token reservation."""
    from cardchat.repo import chats as chat_repo

    uid, bg = chat.owner, chosen.background
    user_msg, stub = question_and_stub(chat_id, 0, question, spec.id, stamp, rules.own_key)
    hold = TokenReservation(
        message=first_message_id(chat_id, 1),
        attempt=1,
        tokens=token_bound(spec, bg.tokens, [question]),
        created=stamp,
    )
    chat_repo.write_new_chat(
        db,
        chat_id,
        chat,
        private,
        ChatBackground(
            chat=chat_id,
            owner=uid,
            model=spec.id,
            tokens=bg.tokens,
            parts=0,
            created=stamp,
            card_updated=packed_stamps(bg.card_ids, chosen.cards),
        ),
        bg.text,
        first := [(first_message_id(chat_id, 0), user_msg), (first_message_id(chat_id, 1), stub)],
        ratelimit.admission(uid, stamp, rules, hold),
        source,
    )
    start_answers(db, first)


def _chat_documents(uid: str, req: CreateChatRequest, chosen: Selection, stamp: datetime) -> tuple[Chat, ChatPrivate]:
    """What any reader of the chat sees, and what only its owner does."""
    from cardchat.chat import titles

    bg, budget, considered = chosen.background, chosen.budget, len(chosen.visible)
    chat = Chat(
        owner=uid,
        title=titles.fallback_title(req.initial_message),
        model=req.model,
        created=stamp,
        last_updated=stamp,
        message_count=2,
        look_further=req.look_further,
    )
    private = ChatPrivate(
        owner=uid,
        background_length=budget,
        background_tokens=bg.tokens,
        card_ids=bg.card_ids,
        card_owners=packed_owners(bg.card_ids, chosen.cards),
        card_count_requested=considered if req.query is not None else len(req.card_ids),
        collection=req.collection,
        cards_unranked=chosen.unranked,
        cards_considered=considered,
        cards_packed=len(bg.card_ids),
        cards_cut=considered - len(bg.card_ids),
        collection_query=req.query.to_dict() if req.query is not None else None,
        cards_by_others=chosen.cards_by_others(bg.card_ids),
        collection_id=req.collection_id,
        pinned_cards=chosen.pinned,
    )
    return chat, private


def delete_chat(db: Db, uid: str, chat_id: str) -> None:
    from cardchat.repo import chats as chat_repo

    permissions.require_owner(chat_repo.get_chat(db, chat_id), uid)
    ratelimit.release_untaken(db, uid, chat_id)
    chat_repo.delete_chat(db, chat_id)
