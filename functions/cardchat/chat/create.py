"""createChat: a conversation that appears to be with a whole collection.

Cull the cards the caller may not view, rank the rest against the first
message, pack the best into the model's budget as a hidden background, and
write chat + background + first messages atomically. The caller learns the
chat id and counts, never which requested ids exist or what the cards say.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from cardchat import access, llms, ratelimit
from cardchat.chat.collection import CardSource
from cardchat.chat.turns import question_and_stub, token_bound
from cardchat.context_schema import ChatSource
from cardchat.errors import InvalidArgument
from cardchat.ids import first_message_id, new_chat_id
from cardchat.parsing import CreateChatRequest
from cardchat.retrieval.dense import vector_matrix
from cardchat.schema import Card, Chat, ChatBackground, ChatPrivate, TokenReservation, now, public_citations

if TYPE_CHECKING:
    from cardchat.background import Background
    from cardchat.embeddings import Embedder

#: Tokens a provider adds around the system text and one user turn.
QUESTION_OVERHEAD = 64
#: Cards without a fresh embedding are embedded on the spot, those BM25 likes best for the question
#: first, in batches of EMBED_BATCH until this many or until EMBED_BUDGET_S has gone (no batch starts
#: that would end past it, judging by the one before; with no time at all, not even the first). MiniLM
#: manages 10-50 card texts a second on two cores, fewer while a backfill shares them: a budget of "at
#: least one batch of 16" made createChat take 10.8 s on `scripts/dev` right after start (issue 17), so
#: batches are small (two cards) and the budget bounds the wait. The rest are ranked by BM25 alone (see
#: retrieval) and counted in `cards_unranked`; the embedCard trigger and `cardchat backfill` are what
#: keep a collection embedded.
EMBED_ON_THE_SPOT = 64
EMBED_BATCH = 2
EMBED_BUDGET_S = 0.3


@dataclass
class CreateChatResult:
    chat_id: str
    timings_ms: dict[str, float] = field(default_factory=dict)


def background_budget(spec: llms.ModelSpec, percentage: float, question: str) -> int:
    """percentage × the window, but never so much that the first question and
    the answer's reserve no longer fit beside it (at 100 % every answer would
    fail with the context too small, and so would every retry)."""
    from cardchat.chat.turns import output_reserve
    from cardchat.tokens import count_tokens

    room = spec.context_window - output_reserve(spec) - count_tokens([question], spec.tokenizer)[0] - QUESTION_OVERHEAD
    return max(0, min(int(percentage * spec.context_window), room))


def create_chat(
    db: Any, uid: str, req: CreateChatRequest, when: datetime | None = None, limits: ratelimit.Limits | None = None
) -> CreateChatResult:
    """Everything after parsing and authorisation (see main.createChat). The
    rate-limit slot and token reservation are taken in the transaction that
    writes the chat; a caller who could not be admitted even for the question
    alone is refused before the ranking work, with nothing written."""
    lap = _Laps()
    spec = llms.MODELS[req.model]
    stamp = when or now()
    rules = limits or ratelimit.Limits.from_env()
    ratelimit.check(db, uid, token_bound(spec, 0, [req.initial_message]), stamp, rules)
    chosen = select_background(
        db, uid, req.source, req.initial_message, spec, req.background_percentage, req.collection.description, lap
    )
    chat_id = new_chat_id()
    chat, private = _chat_documents(uid, req, chosen.background, chosen.budget, chosen.unranked, chosen.visible, stamp)
    # What follow-ups rank (turn_context.py): the query itself, else the ids the caller could read.
    query = req.query.to_dict() if req.query is not None else None
    source = ChatSource(chat_id, uid, [] if query else list(chosen.visible), created=stamp, collection_query=query)
    _write(db, chat_id, chat, private, chosen.background, spec, req.initial_message, stamp, rules, source)
    lap("write")
    return CreateChatResult(chat_id, lap.timings_ms)


@dataclass
class Selection:
    """What culling, ranking and fitting chose for one caller."""

    background: Background
    visible: dict[str, Card]  # the requested cards the caller may view, in request order (a query's: by id)
    budget: int  # the background's target, in tokens
    unranked: int  # visible cards ranked by BM25 alone (no vector in time)


def select_background(
    db: Any,
    uid: str,
    source: CardSource,
    question: str,
    spec: llms.ModelSpec,
    percentage: float,
    description: str,
    lap: Callable[[str], None],
) -> Selection:
    """Resolve `source` (ids or a query) to the cards `uid` may view, rank them against `question`,
    fit the best into `percentage` of `spec`'s window. Shared by createChat
    and continueChat (chat/continuation.py); `lap` records each step's time."""
    # Heavy modules load here, not when the endpoint module is imported.
    from cardchat.embeddings import get_embedder
    from cardchat.repo import embeddings as emb_repo

    embedder = get_embedder()
    pool = _visible_cards(db, uid, source)
    lap("load_cards")
    vectors = emb_repo.load_embeddings(db, dict(zip(pool.ids, pool.hashes)), embedder.model_id)
    lap("load_embeddings")
    _embed_missing(db, embedder, pool, vectors, question)
    query_vec = embedder.embed_query(question)
    lap("embed")
    order, has_vector = _rank(pool, vectors, query_vec, embedder.dim, question)
    lap("rank")
    budget = background_budget(spec, percentage, question)
    bg = _fit(pool, order, budget, spec, description)
    lap("fit")
    return Selection(bg, pool.cards, budget, int((~has_vector).sum()))


class _Laps:
    """Milliseconds per step, each from the end of the one before (the endpoint logs them)."""

    def __init__(self) -> None:
        self.timings_ms: dict[str, float] = {}
        self._clock = time.perf_counter()

    def __call__(self, name: str) -> None:
        self.timings_ms[name] = round((time.perf_counter() - self._clock) * 1000, 1)
        self._clock = time.perf_counter()


@dataclass
class _Pool:
    """The requested cards the caller may view, in request order, with what gets embedded of each."""

    ids: list[str]
    cards: dict[str, Card]
    texts: list[str]
    hashes: list[str]


def _visible_cards(db: Any, uid: str, source: CardSource) -> _Pool:
    from cardchat.chat import collection
    from cardchat.embeddings import text

    visible = collection.resolve(db, uid, source)
    pairs = [text.embeddable_and_hash(c.title, c.body) for c in visible.values()]
    return _Pool(list(visible), visible, [p[0] for p in pairs], [p[1] for p in pairs])


def _embed_missing(db: Any, embedder: Embedder, pool: _Pool, vectors: dict[str, np.ndarray], question: str) -> None:
    """Embed (and store) cards without a fresh vector, best BM25 match first, within
    EMBED_ON_THE_SPOT and EMBED_BUDGET_S; adds what it made to `vectors`."""
    from cardchat.repo import embeddings as emb_repo
    from cardchat.retrieval import rank as retrieval

    missing = [i for i, c in enumerate(pool.ids) if c not in vectors]
    if not missing:
        return
    if len(missing) > EMBED_BATCH:  # the index is cached: rank_cards reuses it
        scores = retrieval.sparse_scores(question, pool.ids, pool.texts, pool.hashes)
        missing.sort(key=lambda i: -scores[i])
    until, last = time.perf_counter() + EMBED_BUDGET_S, 0.0
    for start in range(0, min(len(missing), EMBED_ON_THE_SPOT), EMBED_BATCH):
        began = time.perf_counter()
        if began + last > until:  # would end past the budget, judging by the batch before
            break
        batch = [pool.ids[i] for i in missing[start : start + EMBED_BATCH]]
        vectors.update(emb_repo.embed_and_store(db, {c: pool.cards[c] for c in batch}, embedder))
        last = time.perf_counter() - began


def _rank(
    pool: _Pool, vectors: dict[str, np.ndarray], query_vec: np.ndarray, dim: int, question: str
) -> tuple[list[int], np.ndarray]:
    """The pool's indices, best first, and which cards had a vector (the rest are ranked by BM25 alone)."""
    from cardchat.retrieval import rank as retrieval

    matrix, has_vector = vector_matrix(vectors, pool.ids, dim)
    order = retrieval.rank_cards(question, query_vec, pool.ids, pool.texts, matrix, has_vector, text_hashes=pool.hashes)
    return order, has_vector


def _fit(pool: _Pool, order: list[int], budget: int, spec: llms.ModelSpec, description: str) -> Background:
    from cardchat import background

    try:
        return background.fit_background(
            [(pool.ids[i], pool.cards[pool.ids[i]]) for i in order], budget, spec.tokenizer, description
        )
    except ValueError:  # the budget cannot even hold the preamble
        raise InvalidArgument("background_percentage: too small for this model to hold any card") from None


def _write(
    db: Any,
    chat_id: str,
    chat: Chat,
    private: ChatPrivate,
    bg: Background,
    spec: llms.ModelSpec,
    question: str,
    stamp: datetime,
    rules: ratelimit.Limits,
    source: ChatSource,
) -> None:
    """Chat, background and the first two messages in one transaction with the rate-limit slot and the
    first answer's token reservation."""
    from cardchat.repo import chats as chat_repo

    uid = chat.owner
    user_msg, stub = question_and_stub(chat_id, 0, question, spec.id, stamp)
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
        ChatBackground(chat=chat_id, owner=uid, model=spec.id, tokens=bg.tokens, parts=0, created=stamp),
        bg.text,
        [(first_message_id(chat_id, 0), user_msg), (first_message_id(chat_id, 1), stub)],
        (uid, lambda quota: ratelimit.admit(quota, stamp, rules, hold)),
        source,
    )


def _chat_documents(
    uid: str,
    req: CreateChatRequest,
    bg: Background,
    budget: int,
    unranked: int,
    cards: dict[str, Card],
    stamp: datetime,
) -> tuple[Chat, ChatPrivate]:
    """What any reader of the chat sees, and what only its owner does."""
    from cardchat.chat import titles

    chat = Chat(
        owner=uid,
        title=titles.fallback_title(req.initial_message),
        model=req.model,
        public_citations=public_citations(bg.card_ids, cards),
        created=stamp,
        last_updated=stamp,
        message_count=2,
    )
    private = ChatPrivate(
        owner=uid,
        background_length=budget,
        background_tokens=bg.tokens,
        card_ids=bg.card_ids,
        card_count_requested=len(cards) if req.query is not None else len(req.card_ids),
        collection=req.collection,
        cards_unranked=unranked,
        cards_considered=len(cards),
        cards_packed=len(bg.card_ids),
        cards_cut=len(cards) - len(bg.card_ids),
        collection_query=req.query.to_dict() if req.query is not None else None,
    )
    return chat, private


def delete_chat(db: Any, uid: str, chat_id: str) -> None:
    from cardchat.repo import chats as chat_repo

    access.require_owner(chat_repo.get_chat(db, chat_id), uid)
    ratelimit.release_unclaimed(db, uid, chat_id)
    chat_repo.delete_chat(db, chat_id)
