"""continueChat: a signed-in reader of someone else's chat (a viewer it is
shared with, or a visitor of a published link) carries it on in a chat of
their own.

The new chat belongs to the caller and starts with the transcript so far
(branch.copy_history). Its hidden background is rebuilt, never copied, and
from what the reader already sees: the cards the copied complete answers cite
(their `sources`, read against the source's numbering), culled to those the
caller may view, ranked on the conversation and fitted into the caller's
model's budget (create.select_background). With a `query` (a scope of the
caller's, as createChat takes one), its cards join them, after the cited ones.
The source's other cards never enter: nothing the new chat records
(chat_private's ids, counts and sizes, chat_sources, which its owner's
follow-ups rank) tells which, or how many, were behind the source.

A cited card keeps the number the source gave it, so the [n] of the copied
answers still name the same card without rewriting them; every number no copied
answer cites, and a cited card the caller may not view or that did not fit, is
"" in the new card_ids and shows as a plain [n] (as a withdrawn card does,
recheck.py). The transcript already shows which numbers are cited, so the
gaps tell nothing more. The chosen scope's cards, and per-turn retrieval's
later, take the numbers after the highest cited one. The owner's collection
description stays theirs. Where the chat came from is recorded in the
caller's ChatPrivate only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from cardchat.access import ratelimit
from cardchat.chat.branch import copy_history
from cardchat.chat.create import Selection, select_background
from cardchat.chat.history_window import said_before
from cardchat.chat.packed_cards import copied_citations, packed_owners, packed_stamps
from cardchat.chat.titles import fallback_title
from cardchat.errors import NotFound
from cardchat.ids import new_chat_id
from cardchat.llm import models
from cardchat.repo import chats as chats_repo
from cardchat.repo import messages as messages_repo
from cardchat.repo import sharing
from cardchat.schema.chat_sources import ChatSource
from cardchat.schema.documents import Chat, ChatBackground, ChatPrivate
from cardchat.schema.documents import now as utc_now

if TYPE_CHECKING:
    from cardchat.access.permissions import AIAccess
    from cardchat.parsing.collection_query import CollectionQuery
    from cardchat.repo.db import Db
    from cardchat.retrieval.background import Background
    from cardchat.schema.messages import ChatMessage

#: Appended to the source's title in the caller's list.
TITLE_SUFFIX = " · continued"
#: The end of the conversation the cards are ranked against: its latest questions.
QUERY_CHARS = 2_000


@dataclass(frozen=True)
class Cited:
    """What the copied answers cite, read against the source's numbering."""

    cards: dict[str, int]  # card id -> the number the answers cite it by, lowest number first
    #: the highest number they cite, a card's or a withdrawn one's: new cards are numbered
    #: after it, so a copied [n] never comes to name a card its answer did not cite
    highest: int


def cited_cards(history: list[tuple[str, ChatMessage]], source_ids: list[str]) -> Cited:
    """The cards the copied complete answers cite (their `sources`, generation/claims.py), by the
    number each has in the source whose card ids are `source_ids`; a number whose card was
    withdrawn since ("") names none. An answer made before `sources` were kept cites none."""
    numbers = sorted({n for _, m in history if m.role == "assistant" for n in m.sources or [] if isinstance(n, int)})
    cards: dict[str, int] = {}
    for n in numbers:
        card = source_ids[n - 1] if 0 < n <= len(source_ids) else ""
        if card:
            cards.setdefault(card, n)
    return Cited(cards, max(numbers, default=0))


def may_read(db: Db, chat_id: str, chat: dict[str, Any], uid: str) -> bool:
    """firestore.rules' read of chats/{id} for a signed-in user, admins aside:
    the owner, anyone once it is published, a viewer it is shared with."""
    return chat.get("owner") == uid or chat.get("published") is True or sharing.is_viewer(db, chat_id, uid)


def continue_chat(
    db: Db,
    uid: str,
    chat_id: str,
    model_id: str | None,
    fraction: float,
    ai: AIAccess,
    now: datetime | None = None,
    query: CollectionQuery | None = None,
) -> str:
    """A new chat of `uid`'s continuing `chat_id` (parsed: parsing.requests.continue_chat); returns its id.
    An unknown chat and one the caller may not read are the same NOT_FOUND, so a guessed id
    learns nothing. `model_id` None: the source's model if the caller may use it, else the default.
    `query`: a scope of the caller's whose cards join the cited ones; None, the cited ones alone."""
    when = now or utc_now()
    source, private = _readable_source(db, uid, chat_id)
    spec = models.spec_of(model_id or _default_model(source, ai))
    assert spec is not None  # parsed (parsing.requests.continue_chat) or the default
    rules = ai.admit(spec.id)  # AI use, or the caller's own key for this provider
    ratelimit.check(db, uid, 0, when, rules)

    messages = [m for _, m in messages_repo.chat_messages(db, chat_id)]
    count = int(source.get("message_count") or len(messages))
    new_id = new_chat_id()
    history = copy_history(messages, count, new_id, when)
    cited = cited_cards(history, [c if isinstance(c, str) else "" for c in private.get("card_ids") or []])
    bg, chosen = _background(db, uid, cited, query, said_before(messages, count), spec, fraction)
    chat, private_copy, background = _documents(uid, new_id, source, chat_id, spec, bg, chosen, cited, history, when)
    if query is not None:
        private_copy = replace(private_copy, collection_query=query.to_dict())
    chats_repo.write_branch(
        db,
        new_id,
        chat,
        private_copy,
        background,
        bg.text,
        history,
        [],
        ratelimit.admission(uid, when, rules),
        # what its follow-ups rank (turn_context.py): the chosen scope, else the cited cards the caller may view
        ChatSource(
            chat=new_id,
            owner=uid,
            card_ids=[] if query is not None else list(chosen.visible),
            ranked_for=-1,
            created=when,
            collection_query=private_copy.collection_query,
        ),
    )
    return new_id


def _documents(
    uid: str,
    new_id: str,
    source: dict[str, Any],
    chat_id: str,
    spec: models.ModelSpec,
    bg: Background,
    chosen: Selection,
    cited: Cited,
    history: list[Any],
    when: datetime,
) -> tuple[Chat, ChatPrivate, ChatBackground]:
    """The continuation's chat, its owner's private document and its hidden background's head.
    Every count is of the new chat's own cards: the cited ones (and the chosen scope's)."""
    considered = len(set(chosen.visible) | set(chosen.pinned))
    packed = [c for c in bg.card_ids if c]
    chat = Chat(
        owner=uid,
        title=_continued_title(source),
        model=spec.id,
        public_citations=copied_citations([m for _, m in history], bg.card_ids, chosen.cards),
        created=when,
        last_updated=when,
        message_count=len(history),
    )
    private_copy = ChatPrivate(
        owner=uid,
        background_tokens=bg.tokens,
        card_ids=bg.card_ids,
        card_owners=packed_owners(bg.card_ids, chosen.cards),
        background_length=chosen.budget,
        card_count_requested=considered,
        cards_unranked=chosen.unranked,
        continued_from={"chat": chat_id, "messages": len(history)},
        cards_considered=considered,
        cards_packed=len(packed),
        cards_cut=considered - len(packed),
        cards_by_others=chosen.cards_by_others(packed),
    )
    background = ChatBackground(
        chat=new_id,
        owner=uid,
        model=spec.id,
        tokens=bg.tokens,
        parts=0,
        created=when,
        card_updated=packed_stamps(bg.card_ids, chosen.cards),
    )
    return chat, private_copy, background


def _readable_source(db: Db, uid: str, chat_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The chat to continue and its private document, if `uid` may read it; else NOT_FOUND."""
    source = chats_repo.get_chat(db, chat_id)
    private = chats_repo.get_private(db, chat_id) if source is not None else None
    if source is None or private is None or not may_read(db, chat_id, source, uid):
        raise NotFound("chat not found")
    return source, private


def _continued_title(source: dict[str, Any]) -> str:
    """The source's title with one " · continued", however often it was continued."""
    return f"{str(source.get('title') or '').removesuffix(TITLE_SUFFIX) or fallback_title('')}{TITLE_SUFFIX}"


def _default_model(source: dict[str, Any], ai: AIAccess) -> str:
    spec = models.spec_of(source.get("model"))
    return spec.id if spec is not None and ai.offers(spec) else models.default_model_id(own_keys=ai.own_keys)


def _query(said: list[ChatMessage]) -> str:
    """The questions asked so far, the latest last, cut to QUERY_CHARS from the end."""
    questions = "\n".join(m.content for m in said if m.role == "user")
    return questions[-QUERY_CHARS:].strip() or "?"


def _numbers(card_ids: list[str], cited: Cited) -> list[int]:
    """Each packed card's number in the new chat: a cited card its source's, any other
    (the chosen scope's) the next after every cited number, in packing order."""
    after, out = cited.highest, []
    for c in card_ids:
        if c not in cited.cards:
            after += 1
        out.append(cited.cards.get(c, after))
    return out


def _background(
    db: Db,
    uid: str,
    cited: Cited,
    query: CollectionQuery | None,
    said: list[ChatMessage],
    spec: models.ModelSpec,
    fraction: float,
) -> tuple[Background, Selection]:
    """The caller's background over the cited cards they may view, then `query`'s, numbered
    by _numbers, its ids padded with "" to the highest cited number: (background, selection)."""
    from cardchat.llm.tokens import count_tokens
    from cardchat.retrieval.background import Background, fit_background, renumber

    if query is None:
        chosen = select_background(db, uid, list(cited.cards), _query(said), spec, fraction, "")
    else:  # the cited cards first, as pins go first, then the scope's best for the conversation
        chosen = select_background(db, uid, query, _query(said), spec, fraction, "", pinned=list(cited.cards))
    bg = chosen.background
    for attempt in range(3):  # renumbering can add a digit here and there: refit below the budget
        numbers = _numbers(bg.card_ids, cited)
        text = renumber(bg.text, numbers)
        tokens = count_tokens([text], spec.tokenizer)[0]
        if tokens <= chosen.budget or not bg.card_ids or attempt == 2:
            break
        smaller = bg.tokens - (tokens - chosen.budget) - 1
        bg = fit_background([(c, chosen.cards[c]) for c in bg.card_ids], smaller, spec.tokenizer, "", chosen.authors)
    ids = [""] * max([cited.highest, *numbers])
    for c, n in zip(bg.card_ids, numbers, strict=True):
        ids[n - 1] = c
    return Background(text=text, card_ids=ids, tokens=tokens, budget=chosen.budget), chosen
