"""Email addresses in requests: shareChat's add/remove lists and
resolveViewers' look-ups, parsed alike (trimmed, lower-cased, bounded) so a
typo is refused the same way in both places. Apart from parsing/requests.py, which
holds every other callable's parsing, so neither outgrows a reader.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cardchat.errors import InvalidArgument
from cardchat.parsing.requests import _utf8_bytes, doc_id
from cardchat.schema.documents import MAX_VIEWERS

# --- shareChat ----------------------------------------------------

#: Addresses in one add or remove list: room to fill a chat's viewers at once.
MAX_SHARE_EMAILS = MAX_VIEWERS
#: RFC 5321's limit on an address.
MAX_EMAIL_CHARS = 254
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")


@dataclass
class ShareChatRequest:
    chat_id: str
    add: list[str]
    remove: list[str]
    show_author: bool | None  # None: leave the author chip toggle as it is


def _emails(data: Mapping[str, Any], name: str) -> list[str]:
    """Trimmed, lower-cased (Firebase Auth keeps addresses lower-case), in order, without repeats."""
    value = data.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_SHARE_EMAILS:
        raise InvalidArgument(f"{name}: a list of at most {MAX_SHARE_EMAILS} email addresses is required")
    out: list[str] = []
    for item in value:
        email = item.strip().lower() if isinstance(item, str) else ""
        if len(email) > MAX_EMAIL_CHARS or not _EMAIL.match(email) or _utf8_bytes(email) is None:
            raise InvalidArgument(f"{name}: {str(item)[:60]!r} is not an email address")
        if email not in out:
            out.append(email)
    return out


def share_chat(data: Any) -> ShareChatRequest:
    """shareChat({chat_id, add?: [email], remove?: [email], show_author?: bool})"""
    chat_id = doc_id(data, "chat_id")
    show = data.get("show_author")
    if show is not None and not isinstance(show, bool):
        raise InvalidArgument("show_author: must be true or false")
    add, remove = _emails(data, "add"), _emails(data, "remove")
    both = [e for e in add if e in remove]
    if both:
        raise InvalidArgument(f"remove: {both[0]!r} is also in add")
    return ShareChatRequest(chat_id, add, remove, show)


# --- resolveViewers -----------------------------------------------


@dataclass
class ResolveViewersRequest:
    emails: list[str]
    card_id: str | None  # one of the caller's cards, whose viewers are named back


def resolve_viewers(data: Any) -> ResolveViewersRequest:
    """resolveViewers({emails?: [email] (≤ 50), card_id?: string}), at least one."""
    if not isinstance(data, dict):
        raise InvalidArgument("emails or card_id is required")
    emails = _emails(data, "emails")
    card_id = doc_id(data, "card_id") if data.get("card_id") is not None else None
    if not emails and card_id is None:
        raise InvalidArgument("emails or card_id is required")
    return ResolveViewersRequest(emails, card_id)
