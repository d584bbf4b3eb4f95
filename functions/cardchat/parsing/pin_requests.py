"""pinCard's and excludeCard's requests (chat/pins.py)."""

from __future__ import annotations

from typing import Any

from cardchat.errors import InvalidArgument
from cardchat.parsing.requests import doc_id


def card_choice(data: Any, flag: str) -> tuple[str, str, bool]:
    """(chat_id, card_id, `flag`): `flag` ("pinned", "excluded") is true unless the request says false
    (an undo)."""
    chat_id, card_id = doc_id(data, "chat_id"), doc_id(data, "card_id")
    value = data.get(flag, True)
    if not isinstance(value, bool):
        raise InvalidArgument(f"{flag}: true or false")
    return chat_id, card_id, value
