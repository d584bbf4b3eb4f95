"""Firestore adapter for sharing a chat: its viewer docs (chat_viewers) and its
author chip (chat_authors/{id}), changed together in one transaction."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from google.cloud import firestore

from cardchat.ids import chat_viewer_id
from cardchat.schema.documents import CHAT_AUTHORS, CHAT_VIEWERS, CHATS, ChatAuthor, ChatViewer
from cardchat.schema.documents import now as utc_now

#: (the chat as stored or None, its viewers' uids now, the author doc as stored or None) → (viewers, author).
Decide = Callable[[dict[str, Any] | None, list[str], dict[str, Any] | None], tuple[list[str], ChatAuthor]]


def _of_chat(db: firestore.Client, chat_id: str) -> Any:
    return db.collection(CHAT_VIEWERS).where(filter=firestore.FieldFilter("chat", "==", chat_id))


def viewers(db: firestore.Client, chat_id: str) -> list[str]:
    """The uids a chat is shared with, in the order they were added."""
    found = [ChatViewerRow(s.to_dict()) for s in _of_chat(db, chat_id).stream()]
    return [r.viewer for r in sorted(found, key=ChatViewerRow.order)]


def is_viewer(db: firestore.Client, chat_id: str, uid: str) -> bool:
    """firestore.rules' isChatViewer: the caller's viewer doc for this chat exists."""
    snap = db.collection(CHAT_VIEWERS).document(chat_viewer_id(chat_id, uid)).get()
    return bool(snap.exists and (snap.to_dict() or {}).get("chat") == chat_id)


def remove_viewer(db: firestore.Client, chat_id: str, uid: str) -> bool:
    """Deletes `uid`'s viewer doc of `chat_id` in a transaction that reads it first; whether there was one."""
    ref = db.collection(CHAT_VIEWERS).document(chat_viewer_id(chat_id, uid))

    @firestore.transactional
    def run(tx: firestore.Transaction) -> bool:
        snap = ref.get(transaction=tx)
        if not (snap.exists and (snap.to_dict() or {}).get("chat") == chat_id):
            return False
        tx.delete(ref)
        return True

    return bool(run(db.transaction()))


class ChatViewerRow:
    """A stored viewer doc, for ordering (a missing `added` sorts first)."""

    def __init__(self, d: dict[str, Any] | None) -> None:
        self.viewer = str((d or {}).get("viewer") or "")
        self.added = (d or {}).get("added")

    def order(self) -> tuple[float, str]:
        return (self.added.timestamp() if isinstance(self.added, datetime) else 0.0, self.viewer)


def update_sharing(db: firestore.Client, chat_id: str, decide: Decide) -> tuple[list[str], ChatAuthor]:
    """Reads the chat, its viewer docs and its author doc, lets `decide` check
    the caller and compute the new viewers and author (raising refuses:
    nothing is written), and writes the difference and the author in the same
    transaction, so two owners' tabs sharing at once both land."""
    chat_ref = db.collection(CHATS).document(chat_id)
    author_ref = db.collection(CHAT_AUTHORS).document(chat_id)
    viewer_ref = db.collection(CHAT_VIEWERS).document

    @firestore.transactional
    def run(tx: firestore.Transaction) -> tuple[list[str], ChatAuthor]:
        chat_snap, author_snap = chat_ref.get(transaction=tx), author_ref.get(transaction=tx)
        rows = sorted((ChatViewerRow(s.to_dict()) for s in tx.get(_of_chat(db, chat_id))), key=ChatViewerRow.order)
        current = [r.viewer for r in rows]
        chat = chat_snap.to_dict() if chat_snap.exists else None
        new, author = decide(chat, current, author_snap.to_dict() if author_snap.exists else None)
        for gone in set(current) - set(new):
            tx.delete(viewer_ref(chat_viewer_id(chat_id, gone)))
        when = utc_now()
        for i, added in enumerate(v for v in new if v not in current):  # apart by a microsecond each: kept in order
            doc = ChatViewer(chat_id, author.owner, added, when + timedelta(microseconds=i))
            tx.set(viewer_ref(chat_viewer_id(chat_id, added)), doc.to_dict())
        tx.set(author_ref, author.to_dict())
        return new, author

    result: tuple[list[str], ChatAuthor] = run(db.transaction(max_attempts=10))
    return result


def chats_with_viewers_field(db: firestore.Client) -> list[str]:
    """Ids of chats still holding the `viewers` list chats once had (read as `owner`, `viewers` only)."""
    found = db.collection(CHATS).select(["owner", "viewers"]).stream()
    return [s.id for s in found if "viewers" in (s.to_dict() or {})]


def move_viewers_field(db: firestore.Client, chat_id: str) -> int:
    """Moves one chat's `viewers` list into its chat_viewers docs and deletes the
    field, in one transaction; returns how many viewer docs it wrote. A chat
    without the field is left as it is (0), so running it again changes nothing."""
    chat_ref = db.collection(CHATS).document(chat_id)
    viewer_ref = db.collection(CHAT_VIEWERS).document

    @firestore.transactional
    def run(tx: firestore.Transaction) -> int:
        snap = chat_ref.get(transaction=tx)
        chat = snap.to_dict() if snap.exists else None
        if chat is None or "viewers" not in chat:
            return 0
        owner = str(chat.get("owner") or "")
        listed = [v for v in dict.fromkeys(chat.get("viewers") or []) if isinstance(v, str) and v and v != owner]
        refs = [viewer_ref(chat_viewer_id(chat_id, v)) for v in listed]
        present = {s.id for s in tx.get_all(refs) if s.exists} if refs else set()
        when = utc_now()
        written = 0
        for i, (uid, ref) in enumerate(zip(listed, refs, strict=True)):
            if ref.id not in present:  # a doc shareChat wrote meanwhile keeps its own date
                tx.set(ref, ChatViewer(chat_id, owner, uid, when + timedelta(microseconds=i)).to_dict())
                written += 1
        tx.update(chat_ref, {"viewers": firestore.DELETE_FIELD})
        return written

    result: int = run(db.transaction(max_attempts=10))
    return result


def author_names(db: firestore.Client) -> dict[str, tuple[str, str]]:
    """Every author chip as stored: chat id → (owner, name)."""
    found = ((s.id, s.to_dict() or {}) for s in db.collection(CHAT_AUTHORS).select(["owner", "name"]).stream())
    return {chat_id: (str(d.get("owner") or ""), str(d.get("name") or "")) for chat_id, d in found}


def set_author_name(db: firestore.Client, chat_id: str, was: str, name: str) -> bool:
    """The chip's name `name` if it still reads `was` (shareChat may have written it
    meanwhile, and a deleted chat's chip stays deleted); whether it was written."""
    ref = db.collection(CHAT_AUTHORS).document(chat_id)

    @firestore.transactional
    def run(tx: firestore.Transaction) -> bool:
        snap = ref.get(transaction=tx)
        if not snap.exists or (snap.to_dict() or {}).get("name") != was:
            return False
        tx.update(ref, {"name": name})
        return True

    result: bool = run(db.transaction(max_attempts=10))
    return result
