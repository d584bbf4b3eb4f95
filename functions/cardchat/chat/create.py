"""createChat: a conversation that appears to be with a whole collection.

Cull the cards the caller may not view, rank the rest against the first
message, pack the best into the model's budget as a hidden background, and
write chat + background + first messages atomically. The caller learns the
chat id and counts, never which requested ids exist or what the cards say.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from cardchat import llms, ratelimit
from cardchat.chat.turns import question_and_stub, token_bound
from cardchat.ids import first_message_id, new_chat_id
from cardchat.errors import InvalidArgument, NotFound, PermissionDenied
from cardchat.parsing import CreateChatRequest
from cardchat.schema import Card, Chat, ChatBackground, ChatPrivate, ChatSource, TokenReservation, now
from cardchat.schema import public_citations

if TYPE_CHECKING:
    from cardchat.background import Background

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


def check_may_use_ai(user_doc: Mapping[str, Any] | None) -> None:
    if not user_doc or user_doc.get("may_use_ai") is not True:
        raise PermissionDenied("Your account may not use the AI features yet; ask an admin to grant access")


def create_chat(
    db: Any, uid: str, req: CreateChatRequest, when: datetime | None = None, limits: ratelimit.Limits | None = None
) -> CreateChatResult:
    """Everything after parsing and authorisation (see main.createChat). The
    rate-limit slot and token reservation are taken in the transaction that
    writes the chat; a caller who could not be admitted even for the question
    alone is refused before the ranking work, with nothing written."""
    # Heavy modules load here, not when the endpoint module is imported.
    from cardchat import background
    from cardchat.embeddings import get_embedder, text
    from cardchat.repo import cards as card_repo
    from cardchat.repo import chats as chat_repo
    from cardchat.repo import embeddings as emb_repo
    from cardchat.retrieval import rank as retrieval

    t: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        t[name] = round((time.perf_counter() - clock) * 1000, 1)
        clock = time.perf_counter()

    spec = llms.MODELS[req.model]
    stamp = when or now()
    rules = limits or ratelimit.Limits.from_env()
    ratelimit.check(db, uid, token_bound(spec, 0, [req.initial_message]), stamp, rules)
    embedder = get_embedder()

    loaded = card_repo.load_cards(db, req.card_ids)
    # Cards the caller may not view are dropped without a trace: the answer
    # is the same whether such an id exists or not.
    visible = {cid: c for cid in req.card_ids if (c := loaded.get(cid)) is not None and c.visible_to(uid)}
    ids = list(visible)
    pairs = [text.embeddable_and_hash(visible[c].title, visible[c].body) for c in ids]
    texts = [p[0] for p in pairs]
    hashes = [p[1] for p in pairs]
    lap("load_cards")

    vectors = emb_repo.load_embeddings(db, dict(zip(ids, hashes)), embedder.model_id)
    lap("load_embeddings")
    missing = [i for i, c in enumerate(ids) if c not in vectors]
    if missing:
        if len(missing) > EMBED_BATCH:  # the index is cached: rank_cards reuses it
            scores = retrieval.sparse_scores(req.initial_message, ids, texts, hashes)
            missing.sort(key=lambda i: -scores[i])
        until, last = time.perf_counter() + EMBED_BUDGET_S, 0.0
        for start in range(0, min(len(missing), EMBED_ON_THE_SPOT), EMBED_BATCH):
            began = time.perf_counter()
            if began + last > until:  # would end past the budget, judging by the batch before
                break
            batch = [ids[i] for i in missing[start : start + EMBED_BATCH]]
            vectors.update(emb_repo.embed_and_store(db, {c: visible[c] for c in batch}, embedder))
            last = time.perf_counter() - began
    query_vec = embedder.embed_query(req.initial_message)
    lap("embed")

    has_vector = np.array([c in vectors for c in ids], dtype=bool)
    matrix = np.zeros((len(ids), embedder.dim), dtype=np.float32)
    for i, cid in enumerate(ids):
        if has_vector[i]:
            matrix[i] = vectors[cid]
    order = retrieval.rank_cards(req.initial_message, query_vec, ids, texts, matrix, has_vector, text_hashes=hashes)
    lap("rank")

    budget = background_budget(spec, req.background_percentage, req.initial_message)
    try:
        bg = background.fit_background(
            [(ids[i], visible[ids[i]]) for i in order], budget, spec.tokenizer, req.collection.description
        )
    except ValueError:  # the budget cannot even hold the preamble
        raise InvalidArgument("background_percentage: too small for this model to hold any card") from None
    lap("fit")

    chat_id = new_chat_id()
    chat, private = _chat_documents(uid, req, bg, budget, int((~has_vector).sum()), visible, stamp)
    user_msg, stub = question_and_stub(chat_id, 0, req.initial_message, spec.id, stamp)
    hold = TokenReservation(
        message=first_message_id(chat_id, 1),
        attempt=1,
        tokens=token_bound(spec, bg.tokens, [req.initial_message]),
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
        ChatSource(chat=chat_id, owner=uid, card_ids=ids, created=stamp),  # what follow-ups rank (turn_context.py)
    )
    lap("write")
    return CreateChatResult(chat_id, t)


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
        card_count_requested=len(req.card_ids),
        collection=req.collection,
        cards_unranked=unranked,
        cards_considered=len(cards),
        cards_packed=len(bg.card_ids),
        cards_cut=len(cards) - len(bg.card_ids),
    )
    return chat, private


def delete_chat(db: Any, uid: str, chat_id: str) -> None:
    from cardchat.repo import chats as chat_repo

    chat = chat_repo.get_chat(db, chat_id)
    if chat is None:
        raise NotFound("No such chat")
    if chat.get("owner") != uid:
        raise PermissionDenied("Only the owner may delete a chat")
    ratelimit.release_unclaimed(db, uid, chat_id)
    chat_repo.delete_chat(db, chat_id)
