"""createChat: a conversation that appears to be with a whole collection.

Cull the cards the caller may not view, rank the rest against the first
message, pack the best into the model's budget as a hidden background, and
write chat + background + first messages atomically. The caller learns the
chat id and counts, never which requested ids exist or what the cards say.
"""

from __future__ import annotations

import math
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from cardchat import models
from cardchat.conversation import question_and_stub, validate_content
from cardchat.errors import InvalidArgument, NotFound, PermissionDenied
from cardchat.schema import Chat, ChatBackground, Collection, now

MAX_CARD_IDS = 20_000
MAX_DESCRIPTION_CHARS = 2_000
MAX_CONFIGURATION_BYTES = 20_000
DEFAULT_BACKGROUND_PERCENTAGE = 0.5
#: Tokens a provider adds around the system text and one user turn.
QUESTION_OVERHEAD = 64
#: Cards without a fresh embedding are embedded on the spot, those BM25 likes
#: best for the question first, in batches of EMBED_BATCH until this many or
#: until EMBED_BUDGET_S has gone (no batch starts that would end past it,
#: judging by the one before; with no time at all, not even the first). MiniLM manages 10-50 card texts a second on two cores, fewer
#: while a backfill shares them: a budget of "at least one batch of 16" made
#: createChat take 10.8 s on `scripts/dev` right after start (issue 17), so
#: batches are small (two cards) and the budget bounds the wait. The
#: rest are ranked by BM25 alone (see retrieval) and counted in
#: `cards_unranked`; the embedCard trigger and `cardchat backfill` are what
#: keep a collection embedded.
EMBED_ON_THE_SPOT = 64
EMBED_BATCH = 2
EMBED_BUDGET_S = 0.3


@dataclass
class CreateChatRequest:
    card_ids: list[str]
    initial_message: str
    model: str
    background_percentage: float
    collection: Collection


@dataclass
class CreateChatResult:
    chat_id: str
    timings_ms: dict[str, float] = field(default_factory=dict)


def _valid_doc_id(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value.encode()) <= 1500 and "/" not in value and value not in (".", "..")


def first_message_id(chat_id: str, index: int) -> str:
    """Ids of a chat's first two messages (question 0, answer 1): derived from
    the chat id, so the first question can be found without a query."""
    return f"{chat_id}-{index:04d}"


def parse_id(data: Any, name: str) -> str:
    """A document id from a request (`chat_id`, `message_id`)."""
    value = data.get(name) if isinstance(data, dict) else None
    if not _valid_doc_id(value):
        raise InvalidArgument(f"{name}: a valid id is required")
    return value


def parse_request(data: Any, env: Mapping[str, str] | None = None) -> CreateChatRequest:
    if not isinstance(data, dict):
        raise InvalidArgument("request: must be an object")
    message = validate_content(data.get("initial_message"), "initial_message")

    ids = data.get("card_ids")
    if not isinstance(ids, list) or not ids:
        raise InvalidArgument("card_ids: at least one card id is required")
    if len(ids) > MAX_CARD_IDS:
        raise InvalidArgument(f"card_ids: {len(ids)} ids is over the limit of {MAX_CARD_IDS}")
    if not all(_valid_doc_id(c) for c in ids):
        raise InvalidArgument("card_ids: every id must be a non-empty string without '/'")
    card_ids = list(dict.fromkeys(ids))  # de-duplicated, order kept

    model_id = data.get("model") or models.default_model_id(env)
    spec = models.MODELS.get(model_id) if isinstance(model_id, str) else None
    if spec is None:
        raise InvalidArgument(f"model: unknown model {str(model_id)[:60]!r}")
    if not models.key_present(spec, env):
        raise InvalidArgument(f"model: {spec.label} is not available here (no API key is configured for it)")

    pct = data.get("background_percentage", DEFAULT_BACKGROUND_PERCENTAGE)
    if isinstance(pct, bool) or not isinstance(pct, (int, float)) or not math.isfinite(pct) or not 0 < pct <= 1:
        raise InvalidArgument("background_percentage: must be a number above 0 and at most 1")

    coll = data.get("collection") or {}
    if not isinstance(coll, dict):
        raise InvalidArgument("collection: must be an object")
    description = coll.get("description", "")
    if not isinstance(description, str) or len(description) > MAX_DESCRIPTION_CHARS:
        raise InvalidArgument(f"collection.description: must be a string of at most {MAX_DESCRIPTION_CHARS} characters")
    configuration = coll.get("configuration") or {}
    if not isinstance(configuration, dict) or len(repr(configuration)) > MAX_CONFIGURATION_BYTES:
        raise InvalidArgument("collection.configuration: must be an object of at most 20 KB")

    return CreateChatRequest(card_ids, message, spec.id, float(pct), Collection(description, configuration))


def background_budget(spec: models.ModelSpec, percentage: float, question: str) -> int:
    """percentage × the window, but never so much that the first question and
    the answer's reserve no longer fit beside it (at 100 % every answer would
    fail with the context too small, and so would every retry)."""
    from cardchat.conversation import output_reserve
    from cardchat.tokens import count_tokens

    room = spec.context_window - output_reserve(spec) - count_tokens([question], spec.tokenizer)[0] - QUESTION_OVERHEAD
    return max(0, min(int(percentage * spec.context_window), room))


def check_may_use_ai(user_doc: Mapping[str, Any] | None) -> None:
    if not user_doc or user_doc.get("may_use_ai") is not True:
        raise PermissionDenied("Your account may not use the AI features yet; ask an admin to grant access")


def create_chat(db, uid: str, req: CreateChatRequest) -> CreateChatResult:
    """Everything after parsing and authorisation (see main.createChat)."""
    # Heavy modules load here, not when the endpoint module is imported.
    from cardchat import background, retrieval, text, titles
    from cardchat.embeddings import get_embedder
    from cardchat.repo import cards as card_repo
    from cardchat.repo import chats as chat_repo
    from cardchat.repo import embeddings as emb_repo

    t: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        t[name] = round((time.perf_counter() - clock) * 1000, 1)
        clock = time.perf_counter()

    spec = models.MODELS[req.model]
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
    for i, c in enumerate(ids):
        if has_vector[i]:
            matrix[i] = vectors[c]
    order = retrieval.rank_cards(
        req.initial_message, query_vec, ids, texts, matrix, has_vector, text_hashes=hashes
    )
    lap("rank")

    budget = background_budget(spec, req.background_percentage, req.initial_message)
    try:
        bg = background.fit_background(
            [(ids[i], visible[ids[i]]) for i in order], budget, spec.tokenizer, req.collection.description
        )
    except ValueError:  # the budget cannot even hold the preamble
        raise InvalidArgument("background_percentage: too small for this model to hold any card") from None
    lap("fit")

    chat_id = uuid.uuid4().hex[:20]
    stamp = now()
    chat = Chat(
        owner=uid,
        title=titles.fallback_title(req.initial_message),
        model=spec.id,
        background_length=budget,
        background_tokens=bg.tokens,
        card_ids=bg.card_ids,
        card_count_requested=len(req.card_ids),
        collection=req.collection,
        cards_unranked=int((~has_vector).sum()),
        created=stamp,
        last_updated=stamp,
        message_count=2,
    )
    user_msg, stub = question_and_stub(chat_id, 0, req.initial_message, spec.id, stamp)
    chat_repo.write_new_chat(
        db, chat_id, chat,
        ChatBackground(chat=chat_id, owner=uid, model=spec.id, tokens=bg.tokens, parts=0, created=stamp),
        bg.text,
        [(first_message_id(chat_id, 0), user_msg), (first_message_id(chat_id, 1), stub)],
    )
    lap("write")
    return CreateChatResult(chat_id, t)


def delete_chat(db, uid: str, chat_id: str) -> None:
    from cardchat.repo import chats as chat_repo

    chat = chat_repo.get_chat(db, chat_id)
    if chat is None:
        raise NotFound("No such chat")
    if chat.get("owner") != uid:
        raise PermissionDenied("Only the owner may delete a chat")
    chat_repo.delete_chat(db, chat_id)
