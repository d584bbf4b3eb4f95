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
from typing import TYPE_CHECKING, Any

from cardchat.access import ratelimit
from cardchat.access.permissions import require_owner
from cardchat.chat.history_window import said_before, token_bound, turn_budget
from cardchat.chat.packed_cards import copied_citations
from cardchat.chat.recheck import Checked, check
from cardchat.chat.titles import fallback_title
from cardchat.chat.turns import question_and_stub, start_answers
from cardchat.errors import FailedPrecondition, InvalidArgument, NotFound
from cardchat.ids import first_message_id, new_chat_id, new_message_id
from cardchat.llm import models
from cardchat.repo import chats as chats_repo
from cardchat.repo import messages as messages_repo
from cardchat.retrieval.background import card_numbers, drop_cards
from cardchat.schema.accounts import TokenReservation
from cardchat.schema.chat_sources import ChatSource, ContextTurn
from cardchat.schema.documents import Chat, ChatBackground, ChatPrivate
from cardchat.schema.documents import now as utc_now
from cardchat.schema.messages import ChatMessage

if TYPE_CHECKING:
    from cardchat.repo.db import Db

#: Appended to the source's title: both chats show in the list.
TITLE_SUFFIX = " · branch"


def _base_title(source: Chat) -> str:
    """The source's title without our suffix: a branch of a branch says so once."""
    return source.title.removesuffix(TITLE_SUFFIX)


def branch_chat(
    db: Db,
    uid: str,
    chat_id: str,
    message_index: int,
    text: str,
    now: datetime | None = None,
    limits: ratelimit.Limits | None = None,
) -> str:
    """A new chat that re-asks question `message_index` of `chat_id` as
    `text` (parsed: parsing.requests.branch_chat); returns its id. Only the owner may
    branch their chat. Admission (slot and token reservation) is checked
    before the history is copied and taken in the commit that makes the chat."""
    when = now or utc_now()
    rules = limits or ratelimit.Limits.from_env()
    source = Chat.from_dict(require_owner(chats_repo.get_chat(db, chat_id), uid))
    spec = models.spec_of(source.model)
    if spec is None or not (rules.own_key or models.key_present(spec)):  # own_key: admitted on the caller's key
        raise FailedPrecondition(f"the chat's model {source.model!r} is not available any more")
    earlier = _said_before_question(messages_repo.chat_messages(db, chat_id), message_index)
    bound = token_bound(
        spec,
        (chats_repo.background_tokens(db, chat_id) or 0) + turn_budget(spec),
        [m.content for m in earlier] + [text],
    )
    ratelimit.check(db, uid, bound, when, rules)

    new_id = new_chat_id()
    history = _copied_history(new_id, earlier, when)
    stored = chats_repo.get_private(db, chat_id)
    if stored is None:
        raise NotFound("chat not found")
    private = ChatPrivate.from_dict(stored)
    checked, turns = _checked_context(db, uid, chat_id, private, earlier, message_index, spec.tokenizer)
    n = len(history)
    chat = Chat(
        owner=uid,
        title=fallback_title(text) if n == 0 else f"{_base_title(source) or fallback_title(text)}{TITLE_SUFFIX}",
        model=spec.id,
        public_citations=copied_citations([m for _, m in history], checked.card_ids, checked.cards),
        created=when,
        last_updated=when,
        message_count=n + 2,
        look_further=source.look_further,
    )
    copy = _private_copy(private, uid, checked, chat_id, message_index, turns)
    source_ids = _source_copy(chats_repo.get_source(db, chat_id), new_id, uid, when)
    _write(db, new_id, chat, copy, checked, history, text, spec, bound, when, rules, source_ids)
    return new_id


def _checked_context(
    db: Db, uid: str, chat_id: str, private: ChatPrivate, earlier: list[ChatMessage], index: int, tokenizer: str
) -> tuple[Checked, list[dict[str, Any]]]:
    """The source's background less the cards `uid` may no longer read, and
    less the per-turn additions made for the turns the branch replaces
    (branch_context); with the kept turns' records, renumbered."""
    background = chats_repo.read_background(db, chat_id)
    checked = check(db, uid, private.card_ids, background, private.background_tokens, tokenizer, private.card_owners)
    renumber = {m.message_index: i for i, m in enumerate(earlier)}
    text, tokens, turns = branch_context(private, checked.text, checked.tokens, index, renumber, tokenizer)
    return replace(checked, text=text, tokens=tokens), turns


def _source_copy(source: dict[str, Any] | None, new_id: str, uid: str, when: datetime) -> ChatSource | None:
    """The source chat's cards (its ids or its query), ranked again for the
    branch's own question (its first answer: ranked_for -1); None when the source kept none."""
    if source is None:
        return None
    ids, query = list(source.get("card_ids") or []), source.get("collection_query")
    return ChatSource(new_id, uid, ids, ranked_for=-1, created=when, collection_query=query)


def _said_before_question(stored: list[tuple[str, ChatMessage]], message_index: int) -> list[ChatMessage]:
    """The turns before question `message_index`, as the model saw them; refused if it is not a question."""
    messages = [m for _, m in stored]
    asked = next((m for m in messages if m.message_index == message_index), None)
    if asked is None or asked.role != "user":
        raise InvalidArgument("message_index: not one of your questions in this chat")
    return said_before(messages, message_index)


def copy_history(
    messages: list[ChatMessage], before: int, new_id: str, when: datetime
) -> list[tuple[str, ChatMessage]]:
    """The turns said before index `before` (questions and complete answers,
    as the model saw them), renumbered from 0 for chat `new_id`, each keeping
    when it was said. Shared by branchChat and continueChat."""
    return _copied_history(new_id, said_before(messages, before), when)


def _copied_history(new_id: str, earlier: list[ChatMessage], when: datetime) -> list[tuple[str, ChatMessage]]:
    return [
        (
            new_message_id(),
            ChatMessage(
                chat=new_id,
                message_index=i,
                role=m.role,
                content=m.content,
                status="complete",
                timestamp=m.timestamp or when,
                model=m.model,
                sources=m.sources,
                coverage=m.coverage,
                citation_checks=m.citation_checks,
            ),
        )
        for i, m in enumerate(earlier)
    ]


def _write(
    db: Db,
    new_id: str,
    chat: Chat,
    private: ChatPrivate,
    checked: Checked,
    history: list[tuple[str, ChatMessage]],
    text: str,
    spec: models.ModelSpec,
    bound: int,
    when: datetime,
    rules: ratelimit.Limits,
    source_ids: ChatSource | None,
) -> None:
    """The branch, its background, the copied turns, the edited question and its answer stub, in one commit
    with the rate-limit slot and the answer's token reservation."""
    uid, n = chat.owner, len(history)
    # At the start, the ids createChat gives: the first answer then retitles the branch.
    question_id, stub_id = (
        (first_message_id(new_id, 0), first_message_id(new_id, 1)) if n == 0 else (new_message_id(), new_message_id())
    )
    question, stub = question_and_stub(new_id, n, text, spec.id, when, rules.own_key)
    background = ChatBackground(chat=new_id, owner=uid, model=spec.id, tokens=checked.tokens, parts=0, created=when)
    hold = TokenReservation(message=stub_id, attempt=1, tokens=bound, created=when)
    chats_repo.write_branch(
        db,
        new_id,
        chat,
        private,
        background,
        checked.text,
        history,
        first := [(question_id, question), (stub_id, stub)],
        ratelimit.admission(uid, when, rules, hold),
        source_ids,
    )
    start_answers(db, first)


def _private_copy(
    source: ChatPrivate, uid: str, checked: Checked, chat_id: str, message_index: int, turns: list[dict[str, Any]]
) -> ChatPrivate:
    """The source's owner data for the branch: its collection and counts, the cards still readable."""
    return replace(
        source,
        owner=uid,
        background_tokens=checked.tokens,
        card_ids=checked.card_ids,
        card_owners=checked.card_owners,
        branched_from={"chat": chat_id, "message_index": message_index},
        cards_packed=len(card_numbers(checked.text)) if checked.card_ids else 0,
        context_turns=turns,
    )


def branch_context(
    private: ChatPrivate, text: str, tokens: int, asked: int, renumber: dict[int, int], tokenizer: str
) -> tuple[str, int, list[dict[str, Any]]]:
    """What a branch re-asking question `asked` starts from: the source's
    context less what the turns from `asked` on added (they answered questions
    the branch does not have: generation/turn_context.py), and the records of the
    turns before it under the branch's message indices (`renumber`: source index →
    branch index). Card numbers stay: the copied answers cite the same [n]."""
    from cardchat.llm.tokens import count_tokens

    turns = [ContextTurn.from_dict(t) for t in private.context_turns]
    kept = [t for t in turns if t.message_index in renumber]
    later = {a["n"] for t in turns if t.message_index > asked for a in t.added}
    if later and (gone := later & set(card_numbers(text))):
        text = drop_cards(text, gone)
        tokens = count_tokens([text], tokenizer)[0]
    return text, tokens, [{**t.to_dict(), "message_index": renumber[t.message_index]} for t in kept]
