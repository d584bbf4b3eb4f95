"""A background never outlives access to its cards.

createChat packs only cards its caller may read, but access changes: a card's
owner removes a viewer, makes the card private, or deletes it. Before each
answer (generation/engine.py) and when a chat is branched (chat/branch.py) the cards of the
background are checked against who may read them now; a card its chat's
owner may no longer read is withdrawn: its <card> block is cut out of the
stored background and its entry in ChatPrivate.card_ids becomes "". So is a
card whose owner is not the one it had when packed (ChatPrivate.card_owners):
its id was deleted and made again by someone else, and an old [n] must not
come to mean their card. The other
cards keep their numbers, so [n] in earlier answers still means the same card
(a withdrawn one shows as plain [n]). The same read prunes
Chat.public_citations: a cited card withdrawn or made private stops being linked
for visitors. It only ever removes links: an answer's final write adds them.

Before an answer the retrieval indexes vouch for most cards without a read
(chat/card_stamps.py): their access fields and `updated`, which tells a card
edited since it was packed (chat/edited_cards.py packs it again). The rest are
read, four small fields per card in one BatchGet stream (no title or body): the
three that decide access, and `updated`. Its cost with nothing changed and with
a card withdrawn is measured by `scripts/bench recheck` (docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from cardchat.access import permissions
from cardchat.chat.packed_cards import packed_owners, stale_citations
from cardchat.schema.documents import Card, Chat, ChatBackground, ChatPrivate

if TYPE_CHECKING:
    from cardchat.repo.db import Db


@dataclass
class Checked:
    text: str  # the background without withdrawn cards
    tokens: int
    card_ids: list[str]  # citation order; "" for a withdrawn card
    card_owners: list[str]  # aligned with card_ids; "" for a withdrawn card
    withdrawn: list[str]  # ids withdrawn by this check
    cards: dict[str, Card] = field(default_factory=dict)  # the packed cards' access fields and `updated`, as read


def check(
    db: Db,
    owner: str,
    card_ids: list[str],
    text: str,
    tokens: int,
    tokenizer: str,
    owners: list[str] | None = None,
    known: dict[str, Card] | None = None,
) -> Checked:
    """`text` (a background of `tokens` tokens citing `card_ids`, packed from
    cards of `owners`) as `owner` may have it now. Reads the access fields of
    the cards not `known` (as chat/card_stamps.py vouches for them); writes nothing."""
    from cardchat.repo import cards as card_repo

    vouched = known or {}
    unknown = [c for c in card_ids if c and c not in vouched]
    cards = {**vouched, **(card_repo.load_access(db, unknown, updated=True) if unknown else {})}
    readable = permissions.readable_cards(cards, owner)
    was = packed_owners(card_ids, cards, owners)
    kept = [c if c in readable and cards[c].owner == was[i] else "" for i, c in enumerate(card_ids)]
    gone = {n for n, (was, now) in enumerate(zip(card_ids, kept), start=1) if was and not now}
    if gone:
        from cardchat.llm.tokens import count_tokens
        from cardchat.retrieval.background import drop_cards

        text = drop_cards(text, gone)
        tokens = count_tokens([text], tokenizer)[0]
    kept_owners = [o if c else "" for c, o in zip(kept, was, strict=True)]
    withdrawn = [card_ids[n - 1] for n in sorted(gone)]
    return Checked(text, tokens, kept, kept_owners, withdrawn, cards)


def current_background(
    db: Db, chat_id: str, chat: Chat, private: ChatPrivate, tokenizer: str, from_index: bool = True
) -> tuple[str, int, ChatPrivate]:
    """The engine's background for `chat_id` (`chat`, and `private` as read) and its token
    count, after withdrawing what its owner may no longer read and re-packing the cards
    edited since they were packed (chat/edited_cards.py); a change is stored before the
    answer starts, and `private` handed back as stored. `from_index`: the cards the
    retrieval indexes vouch for are not read (chat/card_stamps.py)."""
    from cardchat.chat import card_stamps, edited_cards
    from cardchat.repo import chats as chats_repo

    text, stored = chats_repo.read_background_and_head(db, chat_id)
    head = ChatBackground.from_dict(stored)
    known = card_stamps.vouched(db, private.owner, private.card_ids, private.card_owners) if from_index else None
    checked = check(
        db, private.owner, private.card_ids, text, private.background_tokens, tokenizer, private.card_owners, known
    )
    edited = edited_cards.refresh(
        db,
        private.owner,
        checked.card_ids,
        checked.text,
        checked.tokens,
        private.background_length,
        tokenizer,
        checked.cards,
        head.card_updated,
    )
    stale = stale_citations(chat.public_citations, edited.card_ids, checked.cards)
    if checked.withdrawn or edited.edited:
        kept = edited.card_ids
        changed = list(dict.fromkeys(head.changed_cards + edited.edited))
        written = chats_repo.replace_background(
            db,
            chat_id,
            edited.text,
            edited.tokens,
            kept,
            [o if c else "" for c, o in zip(kept, checked.card_owners, strict=True)],
            {"card_updated": edited.card_updated, "changed_cards": changed, "cards_changed": len(changed)},
            stale,
        )
        private = replace(private, **written)
    else:
        if stale:
            chats_repo.drop_public_citations(db, chat_id, stale)
        if checked.card_owners != private.card_owners:  # packed before owners were kept: remembered from now on
            chats_repo.set_card_owners(db, chat_id, checked.card_owners)
            private = replace(private, card_owners=checked.card_owners)
        if edited.card_updated != head.card_updated:  # written but not in their text, or stamped for the first time
            chats_repo.set_card_stamps(db, chat_id, edited.card_updated)
    return edited.text, edited.tokens, private


#: Chats read per page when a leaver's cards are withdrawn (withdraw_cards_of).
WITHDRAW_PAGE = 100


def withdraw_cards_of(db: Db, owner: str, max_chats: int = 2_000) -> int:
    """The cards of `owner`, just deleted with their account, out of other people's stored backgrounds
    now rather than at each chat's next answer: the chats whose ChatPrivate.card_owners name `owner`
    (one server-only query, a page at a time) are checked again as before an answer. A card withdrawn
    leaves "" in card_owners, so a chat done is not found again; at most `max_chats` a call (the
    deletion's later pass, or each chat's next answer, takes any left). Returns the chats checked."""
    from cardchat.repo import chats as chats_repo

    seen: set[str] = set()
    while len(seen) < max_chats:
        page = [c for c in chats_repo.holding_cards_of(db, owner, WITHDRAW_PAGE) if c not in seen]
        if not page:
            break  # none left, or only chats whose check withdrew nothing (their chats doc is gone)
        for chat_id in page[: max_chats - len(seen)]:
            seen.add(chat_id)
            _withdraw_from(db, chat_id, owner)
    return len(seen)


def _withdraw_from(db: Db, chat_id: str, owner: str) -> None:
    from cardchat.llm import models
    from cardchat.llm.tokens import TOKENIZERS
    from cardchat.repo import chats as chats_repo

    chat = chats_repo.get_chat(db, chat_id)
    if chat is None:
        return
    private = ChatPrivate.from_dict(chats_repo.get_private(db, chat_id) or {})
    spec = models.spec_of(str(chat.get("model") or ""))
    # Read, not taken from the indexes: the leaver's public partition may outlive their cards a while.
    tokenizer = spec.tokenizer if spec else TOKENIZERS[0]
    current_background(db, chat_id, Chat.from_dict(chat), private, tokenizer, from_index=False)
    # Their ids name them (`<uid>_…`): they go from the chat's other records too.
    theirs = [c for c, o in zip(private.card_ids, private.card_owners, strict=False) if c and o == owner]
    pinned = [c for c in private.pinned_cards + private.excluded_cards if c.startswith(f"{owner}_")]
    chats_repo.forget_cards(db, chat_id, theirs + pinned)
