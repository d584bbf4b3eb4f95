"""shareChat: the owner shares a chat with people by email, or stops; leaveChat:
a person it is shared with stops reading it.

Viewers are stored as one chat_viewers doc each (uids), never on the chat,
which visitors of a published chat read: the rules let a viewer read the
chat as such a visitor does while their doc exists. Their emails
are looked up in Firebase Auth for each answer and never stored. The author
chip's name, the owner's display name or "" (never their email), is refreshed
on every call (chat_authors/{id}).

Every address added or removed spends the caller's hourly look-up budget
(card_viewers.spend_lookups) before Auth is asked: an unknown address is
named (NOT_FOUND), so without it any owner of a chat could test which
addresses have an account, as fast as they can call.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from cardchat.access.card_viewers import spend_lookups
from cardchat.access.permissions import require_owner
from cardchat.errors import FailedPrecondition, NotFound
from cardchat.parsing.addresses import ShareChatRequest
from cardchat.repo import accounts, sharing
from cardchat.repo import chats as chats_repo
from cardchat.schema.documents import MAX_VIEWERS, ChatAuthor

if TYPE_CHECKING:
    from cardchat.repo.db import Db


def share_chat(db: Db, uid: str, req: ShareChatRequest, now: datetime | None = None) -> dict[str, Any]:
    """{viewers: [{uid, email, display_name}], show_author} after applying
    `req`. The owner is checked, and the look-up budget spent, before any
    address is looked up, so no one else learns which addresses have an account."""
    require_owner(chats_repo.get_chat(db, req.chat_id), uid)
    if req.add or req.remove:
        spend_lookups(db, uid, len(req.add) + len(req.remove), now)
    found = accounts.by_email(req.add + req.remove)
    unknown = [e for e in req.add + req.remove if e not in found]
    if unknown:
        raise NotFound(f"No Cardchat account has the address {', '.join(unknown)}")
    before = sharing.viewers(db, req.chat_id)
    known = accounts.by_uid([uid, *before])
    known.update({a.uid: a for a in found.values()})
    owner = known.get(uid)
    # A viewer whose account was deleted can no longer be named by email: they leave the list here.
    gone = {v for v in before if v not in known}
    adding = [found[e].uid for e in req.add if found[e].uid != uid]  # sharing with yourself: a no-op
    removing = {found[e].uid for e in req.remove}

    def decide(
        chat: dict[str, Any] | None, current: list[str], author: dict[str, Any] | None
    ) -> tuple[list[str], ChatAuthor]:
        require_owner(chat, uid)  # again: the chat may have gone meanwhile
        viewers = [v for v in current if v not in removing and v not in gone]
        viewers += [a for a in dict.fromkeys(adding) if a not in viewers]
        if len(viewers) > MAX_VIEWERS and len(viewers) > len(current):
            raise FailedPrecondition(
                f"A chat can be shared with at most {MAX_VIEWERS} people; this one would have {len(viewers)}"
            )
        shown = bool((author or {}).get("shown")) if req.show_author is None else req.show_author
        # Never an email, even with no display name: the chip reaches viewers and visitors, and the SPA shows none.
        return viewers, ChatAuthor(owner=uid, name=owner.shown_name if owner else "", shown=shown)

    viewers, author = sharing.update_sharing(db, req.chat_id, decide)
    _reindex(db, req.chat_id, before, viewers)
    known.update(accounts.by_uid([v for v in viewers if v not in known]))  # added by another tab meanwhile
    listed = [known[v].public() if v in known else {"uid": v, "email": "", "display_name": ""} for v in viewers]
    return {"viewers": listed, "show_author": author.shown}


def _reindex(db: Db, chat_id: str, before: list[str], after: list[str]) -> None:
    """A viewer's search index gains the chats shared with them and loses those no longer shared."""
    from cardchat.repo import chat_search

    chat_search.add_readers(db, chat_id, [v for v in after if v not in before])
    chat_search.remove_readers(db, chat_id, [v for v in before if v not in after])


def leave_chat(db: Db, uid: str, chat_id: str) -> None:
    """`uid` no longer reads `chat_id` as a viewer: their chat_viewers doc goes, and the chat
    leaves their search index. Not a viewer of it (the owner included, or no such chat) is one
    and the same NOT_FOUND, so nobody learns by calling which chats exist."""
    if not sharing.remove_viewer(db, chat_id, uid):
        raise NotFound("This chat is not shared with you")
    _reindex(db, chat_id, [uid], [])
