"""Every document id the server makes, in one place (issue 20, point 3)."""

import secrets
import string
import uuid

_ID_ALPHABET = string.ascii_letters + string.digits


def new_chat_id() -> str:
    return uuid.uuid4().hex[:20]


def chat_viewer_id(chat_id: str, uid: str) -> str:
    """chat_viewers/{id}: the rules look it up by this very shape. Chat ids hold no "_", so one
    id names one (chat, viewer) pair."""
    return f"{chat_id}_{uid}"


def new_message_id() -> str:
    """Same shape as a Firestore auto-id: 20 random alphanumerics."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(20))


def first_message_id(chat_id: str, index: int) -> str:
    """Ids of a chat's first two messages (question 0, answer 1): derived from
    the chat id, so the first question can be found without a query."""
    return f"{chat_id}-{index:04d}"


def chunk_id(message_id: str, index: int) -> str:
    """chat_messages_streaming/{message_id}_{index:06d}."""
    return f"{message_id}_{index:06d}"


def new_run_id() -> str:
    """The token a generation run holds its claim by."""
    return uuid.uuid4().hex
