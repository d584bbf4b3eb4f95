"""`python -m cardchat migrate-chat-viewers`: moves the `viewers` list that chats
once held (readable by every visitor of a published chat) into chat_viewers
docs, which only the owner and each viewer read. scripts/deploy runs it after
every deploy; running it again finds nothing to move. Until it has run, the
rules give a chat that still holds the list to its owner and admins only, so
the list never reaches a visitor, and people it was shared with wait for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardchat.repo import sharing

if TYPE_CHECKING:
    from cardchat.repo.db import Db


@dataclass
class Migrated:
    chats: int  # chats whose `viewers` field was moved and deleted
    viewers: int  # viewer docs written


def migrate(db: Db) -> Migrated:
    moved = Migrated(0, 0)
    for chat_id in sharing.chats_with_viewers_field(db):
        moved.viewers += sharing.move_viewers_field(db, chat_id)
        moved.chats += 1
    return moved
