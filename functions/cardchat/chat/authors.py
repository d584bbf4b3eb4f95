"""Who wrote the cards of a chat's hidden background that are not its
owner's: the display names their blocks carry (background.Authors).

Only a display name is used, never an email: a published chat's visitors can
ask the model about its cards, and an address is not something the owner
was ever shown. An account without a name, a deleted one, or Auth out of
reach leaves the card labelled "another user" (the block still says it is
someone else's, which is what matters to the model).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from cardchat.retrieval.background import Authors
from cardchat.schema.documents import Card

log = logging.getLogger(__name__)


class AuthorBook:
    """The names of other people's cards for `owner`'s chat, each account
    asked for once however often the packing is redone."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.names: dict[str, str] = {}
        self.asked: set[str] = set()

    def authors(self, cards: Iterable[Card]) -> Authors:
        new = {c.owner for c in cards if c.owner and c.owner != self.owner} - self.asked
        if new:
            self.names.update(_display_names(new))
            self.asked |= new
        return Authors(self.owner, dict(self.names))


def _display_names(uids: set[str]) -> dict[str, str]:
    from cardchat.repo import accounts

    try:
        found = accounts.by_uid(sorted(uids))
    except Exception:  # a name is a courtesy: the chat goes on with "another user"
        log.warning("author names: Auth did not answer for %d accounts", len(uids), exc_info=True)
        return {}
    return {uid: a.shown_name for uid, a in found.items() if a.shown_name}
