"""Pin and exclude: the owner's say over which cards a chat's hidden background holds.

A pinned card is always in the background; an excluded one never again, per-turn retrieval
included. The choices are kept in ChatPrivate (`pinned_cards`, `excluded_cards`): the chat's
owner already reads there which cards are behind the chat, and the rules give that document to
no one else, so a viewer or visitor learns nothing new (docs/security.md). The change itself
waits for the next answer (`apply`, before per-turn retrieval): the background is re-packed then,
within its budget, from the cards as they stand.

Refusals tell nothing: a chat that is missing or someone else's, and a card that is missing or
the owner may not read, all get the same NOT_FOUND. Both lists are bounded (MAX_PINS, MAX_EXCLUSIONS:
FAILED_PRECONDITION naming the limit) and each change spends one slot of the owner's pin minute
(`rate_limits/{uid}/windows/pins`, in the transaction that writes it: a refused call spends none).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from cardchat.access import permissions
from cardchat.errors import FailedPrecondition, NotFound
from cardchat.schema.documents import MAX_EXCLUSIONS, MAX_PINS, PIN_WINDOW, Card, ChatPrivate

if TYPE_CHECKING:
    from cardchat.repo.db import Db

Action = Literal["pin", "unpin", "exclude", "include"]
ACTIONS: tuple[Action, ...] = ("pin", "unpin", "exclude", "include")
NOT_FOUND = "card_id: no such card in a chat of yours"


@dataclass(frozen=True)
class CardChoice:
    """What the owner has chosen for one card of a chat."""

    pinned: bool
    excluded: bool

    def to_dict(self) -> dict[str, Any]:
        return {"pinned": self.pinned, "excluded": self.excluded}


def choose(
    db: Db,
    uid: str,
    chat_id: str,
    card_id: str,
    action: Action,
    now: datetime | None = None,
    per_minute: int | None = None,
) -> CardChoice:
    """Pin a card into `chat_id`, exclude it, or undo either (pinning undoes an exclusion, and the
    other way round). Pinning or excluding needs a card `uid` may read; undoing does not. One slot
    of `uid`'s pin minute (ResourceExhausted past it)."""
    from cardchat.access import ratelimit
    from cardchat.repo import cards as card_repo
    from cardchat.repo import chat_pins
    from cardchat.schema.documents import now as utc_now

    when, limit = now or utc_now(), per_minute or ratelimit.window_limit(PIN_WINDOW)

    if action in ("pin", "exclude") and not permissions.readable_cards(card_repo.load_access(db, [card_id]), uid):
        raise NotFound(NOT_FOUND)

    def decide(stored: dict[str, Any] | None) -> dict[str, Any]:
        if not permissions.is_owner(stored, uid):
            raise NotFound(NOT_FOUND)
        assert stored is not None
        private = ChatPrivate.from_dict(stored)
        pinned = [c for c in private.pinned_cards if c != card_id]
        excluded = [c for c in private.excluded_cards if c != card_id]
        if action == "pin":
            if len(pinned) >= MAX_PINS:
                raise FailedPrecondition(f"card_id: a chat holds at most {MAX_PINS} pinned cards; unpin one first")
            pinned.append(card_id)
        elif action == "exclude":
            if len(excluded) >= MAX_EXCLUSIONS:
                raise FailedPrecondition(
                    f"card_id: a chat holds at most {MAX_EXCLUSIONS} excluded cards; include one again first"
                )
            excluded.append(card_id)
        return {"pinned_cards": pinned, "excluded_cards": excluded}

    def spend(recent: list[datetime]) -> list[datetime]:
        return ratelimit.took_slot(recent, when, limit, "pins and exclusions")

    fields = chat_pins.change_pins(db, chat_id, uid, decide, spend)
    return CardChoice(card_id in fields["pinned_cards"], card_id in fields["excluded_cards"])


def readable(db: Db, uid: str, card_ids: Sequence[str]) -> dict[str, Card]:
    """The cards of `card_ids` `uid` may read, in that order (a chat made with pins: chat/create.py);
    the others are dropped without a trace, as createChat drops every id it may not use."""
    from cardchat.repo import cards as card_repo

    return permissions.readable_cards(card_repo.load_cards(db, card_ids), uid, card_ids) if card_ids else {}


def apply(
    db: Db, chat_id: str, private: ChatPrivate, text: str, tokens: int, tokenizer: str
) -> tuple[str, int, ChatPrivate] | None:
    """The background of `chat_id` (`text`, `tokens` tokens) with its owner's exclusions taken out and
    their pinned cards in (retrieval/pinning.py), within the chat's first budget or what it holds now,
    whichever is more; stored before the answer starts. None when it is already so (nothing read, nothing
    written). A pinned card its owner may no longer read stays out, as recheck withdraws it.
    `private`: the chat's, as the answer's run holds it; handed back as stored."""
    from cardchat.retrieval.background import card_numbers

    if not private.pinned_cards and not private.excluded_cards:
        return None
    try:
        present = set(card_numbers(text))
    except ValueError:  # not a background in fit_background's format: nothing to re-pack
        return None
    number = {c: n for n, c in enumerate(private.card_ids, start=1) if c}
    excluded = {number[c] for c in private.excluded_cards if c in number} & present
    missing = [c for c in private.pinned_cards if number.get(c) not in present]
    if not excluded and not missing:
        return None
    return _repack(db, chat_id, private, text, tokens, excluded, missing, tokenizer)


def _repack(
    db: Db,
    chat_id: str,
    private: ChatPrivate,
    text: str,
    tokens: int,
    excluded: set[int],
    missing: list[str],
    tokenizer: str,
) -> tuple[str, int, ChatPrivate] | None:
    from cardchat.chat.authors import AuthorBook
    from cardchat.chat.packed_cards import packed_owners
    from cardchat.repo import chats as chats_repo
    from cardchat.retrieval.background import card_numbers
    from cardchat.retrieval.pinning import Pinned, repin

    cards = readable(db, private.owner, missing)
    ids = list(private.card_ids)
    authors = AuthorBook(private.owner).authors(cards.values())
    for c in cards:
        if c not in ids:
            ids.append(c)
    adding = [Pinned(ids.index(c) + 1, card, authors.of(card)) for c, card in cards.items()]
    kept = {ids.index(c) + 1 for c in private.pinned_cards if c in ids and c not in cards}
    limit = max(private.background_length, tokens)
    new_text, new_tokens = repin(text, excluded, kept, adding, limit, tokenizer)
    if new_text == text:
        return None
    new = ids[len(private.card_ids) :]
    written = chats_repo.write_context(
        db,
        chat_id,
        new_text,
        new_tokens,
        {
            "card_ids": ids,
            "card_owners": packed_owners(ids, cards, private.card_owners),
            "cards_packed": len(card_numbers(new_text)),
            "cards_by_others": private.cards_by_others + authors.foreign([cards[c] for c in new]),
        },
    )
    return new_text, new_tokens, replace(private, **written)
