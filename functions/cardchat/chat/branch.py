"""Branching a conversation: ask one of your questions again, differently, in
a new chat that keeps everything said before it.

The original chat stays as it was, so an answer you liked is never lost to an
edit. The branch has the same hidden background (copied on the server, never
through a client), model and cards, less any card its owner may no longer
read (chat/recheck.py: such a card is left out of the copy); the turns before the
edited question are copied as the model saw them (questions and complete
answers: a failed answer's partial text is not something the model said);
the edited question follows and is answered as in any chat.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from cardchat import llms, ratelimit
from cardchat.background import card_numbers
from cardchat.chat.recheck import Checked, check
from cardchat.chat.titles import fallback_title
from cardchat.ids import first_message_id, new_chat_id, new_message_id
from cardchat.chat.turn_context import branch_context
from cardchat.chat.turns import question_and_stub, require_owner, said_before, token_bound, turn_budget
from cardchat.errors import FailedPrecondition, InvalidArgument, NotFound
from cardchat.repo import chats as chats_repo
from cardchat.repo import messages as messages_repo
from cardchat.schema import Chat, ChatBackground, ChatMessage, ChatPrivate, ChatSource, Collection, TokenReservation
from cardchat.schema import now as utc_now

#: Appended to the source's title: both chats show in the list.
TITLE_SUFFIX = " · branch"


def _base_title(source: dict[str, Any]) -> str:
    """The source's title without our suffix: a branch of a branch says so once."""
    return str(source.get("title") or "").removesuffix(TITLE_SUFFIX)


def branch_chat(
    db: Any,
    uid: str,
    chat_id: str,
    message_index: int,
    text: str,
    now: datetime | None = None,
    limits: ratelimit.Limits | None = None,
) -> str:
    """A new chat that re-asks question `message_index` of `chat_id` as
    `text` (parsed: parsing.branch_chat); returns its id. Only the owner may
    branch their chat. Admission (slot and token reservation) is checked
    before the history is copied and taken in the commit that makes the chat."""
    when = now or utc_now()
    rules = limits or ratelimit.Limits.from_env()
    source = require_owner(chats_repo.get_chat(db, chat_id), uid)
    spec = llms.MODELS.get(source.get("model") or "")
    if spec is None or not llms.key_present(spec):
        raise FailedPrecondition(f"the chat's model {source.get('model')!r} is not available any more")
    messages = [m for _, m in messages_repo.chat_messages(db, chat_id)]
    asked = next((m for m in messages if m.get("message_index") == message_index), None)
    if asked is None or asked.get("role") != "user":
        raise InvalidArgument("message_index: not one of your questions in this chat")

    bound = token_bound(
        spec,
        (chats_repo.background_tokens(db, chat_id) or 0) + turn_budget(spec),
        [m.get("content") or "" for m in said_before(messages, message_index)] + [text],
    )
    ratelimit.check(db, uid, bound, when, rules)

    new_id = new_chat_id()
    copied = said_before(messages, message_index)
    history = [
        (
            new_message_id(),
            ChatMessage(
                chat=new_id,
                message_index=i,
                role=m["role"],
                content=m.get("content") or "",
                status="complete",
                timestamp=m.get("timestamp") or when,
                model=m.get("model"),
            ),
        )
        for i, m in enumerate(copied)
    ]
    n = len(history)
    # At the start, the ids createChat gives: the first answer then retitles the branch.
    question_id, stub_id = (
        (first_message_id(new_id, 0), first_message_id(new_id, 1)) if n == 0 else (new_message_id(), new_message_id())
    )
    question, stub = question_and_stub(new_id, n, text, spec.id, when)
    private = chats_repo.get_private(db, chat_id)
    if private is None:
        raise NotFound("chat not found")
    checked = check(
        db,
        uid,
        list(private.get("card_ids") or []),
        chats_repo.read_background(db, chat_id),
        int(private.get("background_tokens") or 0),
        spec.tokenizer,
    )
    renumber = {int(m.get("message_index") or 0): i for i, m in enumerate(copied)}
    text_, tokens, turns = branch_context(
        ChatPrivate.from_dict(private), checked.text, checked.tokens, message_index, renumber, spec.tokenizer
    )
    checked = replace(checked, text=text_, tokens=tokens)
    chat = Chat(
        owner=uid,
        title=fallback_title(text) if n == 0 else f"{_base_title(source) or fallback_title(text)}{TITLE_SUFFIX}",
        model=spec.id,
        public_citations=checked.public_citations,
        created=when,
        last_updated=when,
        message_count=n + 2,
    )
    background = ChatBackground(chat=new_id, owner=uid, model=spec.id, tokens=checked.tokens, parts=0, created=when)
    hold = TokenReservation(message=stub_id, attempt=1, tokens=bound, created=when)
    chats_repo.write_branch(
        db,
        new_id,
        chat,
        _private_copy(private, uid, checked, chat_id, message_index, turns),
        background,
        checked.text,
        history,
        [(question_id, question), (stub_id, stub)],
        (uid, lambda quota: ratelimit.admit(quota, when, rules, hold)),
        _source_copy(chats_repo.get_source(db, chat_id), new_id, uid, when),
    )
    return new_id


def _source_copy(source: dict[str, Any] | None, new_id: str, uid: str, when: datetime) -> ChatSource | None:
    """The source chat's cards, ranked again for the branch's own question
    (its first answer: ranked_for -1); None when the source kept none."""
    if source is None:
        return None
    return ChatSource(chat=new_id, owner=uid, card_ids=list(source.get("card_ids") or []), ranked_for=-1, created=when)


def _private_copy(
    source: dict[str, Any], uid: str, checked: Checked, chat_id: str, message_index: int, turns: list[dict[str, Any]]
) -> ChatPrivate:
    collection = source.get("collection") or {}
    return ChatPrivate(
        owner=uid,
        background_length=int(source.get("background_length") or 0),
        background_tokens=checked.tokens,
        card_ids=checked.card_ids,
        card_count_requested=int(source.get("card_count_requested") or 0),
        collection=Collection(
            description=collection.get("description", ""), configuration=dict(collection.get("configuration") or {})
        ),
        cards_unranked=int(source.get("cards_unranked") or 0),
        branched_from={"chat": chat_id, "message_index": message_index},
        cards_considered=int(source.get("cards_considered") or 0),
        cards_packed=len(card_numbers(checked.text)) if checked.card_ids else 0,
        cards_cut=int(source.get("cards_cut") or 0),
        context_turns=turns,
    )
