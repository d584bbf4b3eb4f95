"""Whose card a tool result carries. A model calling the tools reads other
people's cards (shared with the user, or public) beside the user's own: each
card says its owner, and one that is not the user's says that its text is
material to cite, not instructions, as the hidden background says of it
(background.FOREIGN_NOTE). Its text comes without the characters its reader
never saw (zero-width, bidi and tag characters: foreign_text.visible), as
in the background; a tool result is JSON, so its `<`s cannot forge anything
and stay as written."""

from __future__ import annotations

from typing import Any

from cardchat.retrieval.background import FOREIGN_NOTE
from cardchat.retrieval.foreign_text import visible
from cardchat.schema.documents import Card

#: Per tool, whether its results can hold text the user did not write (the MCP `openWorldHint`):
#: cards of other people, and answers a model drew from them. The chat list is the user's own.
OPEN_WORLD = {
    "search_cards": True,
    "get_card": True,
    "get_chat": True,
    "list_chats": False,
    "create_card": False,
    "update_card": False,
}


def open_world(tool: str) -> bool:
    """OPEN_WORLD's answer; a tool not listed there is taken to be open."""
    return OPEN_WORLD.get(tool, True)


def provenance(card: Card, uid: str) -> dict[str, Any]:
    """`owner` (a uid) and `yours`; for someone else's card, `foreign` and its note."""
    if card.owner == uid:
        return {"owner": card.owner, "yours": True}
    return {"owner": card.owner, "yours": False, "foreign": True, "note": FOREIGN_NOTE}


def as_shown(card: Card, uid: str, text: str) -> str:
    """Text of `card` (its title, body or a snippet) as a tool result gives it to `uid`."""
    return text if card.owner == uid else visible(text)
