"""Firestore adapter for sharing a chat: its `viewers` and its author chip
(chat_authors/{id}), changed together in one transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.cloud import firestore

from cardchat.schema import CHAT_AUTHORS, CHATS, ChatAuthor

#: (the chat as stored or None, the author doc as stored or None) → (viewers, author).
Decide = Callable[[dict[str, Any] | None, dict[str, Any] | None], tuple[list[str], ChatAuthor]]


def update_sharing(db: firestore.Client, chat_id: str, decide: Decide) -> tuple[list[str], ChatAuthor]:
    """Reads the chat and its author doc, lets `decide` check the caller and
    compute the new viewers and author (raising refuses: nothing is written),
    and writes both in the same transaction, so two owners' tabs sharing at
    once both land."""
    chat_ref = db.collection(CHATS).document(chat_id)
    author_ref = db.collection(CHAT_AUTHORS).document(chat_id)

    @firestore.transactional
    def run(tx: firestore.Transaction) -> tuple[list[str], ChatAuthor]:
        chat_snap, author_snap = chat_ref.get(transaction=tx), author_ref.get(transaction=tx)
        chat = chat_snap.to_dict() if chat_snap.exists else None
        viewers, author = decide(chat, author_snap.to_dict() if author_snap.exists else None)
        if chat is not None and list(chat.get("viewers") or []) != viewers:
            tx.update(chat_ref, {"viewers": viewers})
        tx.set(author_ref, author.to_dict())
        return viewers, author

    result: tuple[list[str], ChatAuthor] = run(db.transaction(max_attempts=10))
    return result
