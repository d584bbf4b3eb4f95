"""`python -m cardchat rewrite-chat-authors`: an author chip's name is the
owner's display name or nothing, never their email. shareChat once wrote the
email when the owner had no display name, and it writes the chip afresh on
every call, but a chat nobody shares again would keep the address readable
by its viewers (and, with the chip shown, by every visitor). Run once on
deploy; running it again finds nothing to change."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cardchat.repo import accounts, sharing

if TYPE_CHECKING:
    from cardchat.repo.db import Db


@dataclass
class Rewritten:
    chips: int  # author docs read
    rewritten: int  # author docs whose name was not the owner's display name now


def rewrite(db: Db, app: Any = None) -> Rewritten:
    """Each chat_authors doc's name set to what shareChat would write now: the
    owner's display name (asked of `app`'s Auth; Account.shown_name), or "" (no
    name, or the account deleted)."""
    stored = sharing.author_names(db)
    owners = {owner for owner, _ in stored.values() if owner}
    names = {a.uid: a.shown_name for a in accounts.by_uid(owners, app).values()}
    done = Rewritten(len(stored), 0)
    for chat_id, (owner, name) in stored.items():
        wanted = names.get(owner, "")
        if name != wanted and sharing.set_author_name(db, chat_id, name, wanted):
            done.rewritten += 1
    return done
