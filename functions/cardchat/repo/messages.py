"""Firestore adapter for chat messages and their streaming chunks.

Every write the engine makes while generating runs in a transaction that first
reads the message and checks the run still owns it (`run_id`, status
`streaming`): a generator that stalled, lost its lease and woke up after a
retry started a new run must not write over the new run's answer or chunks.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from google.cloud import firestore

from cardchat.schema import CHAT_MESSAGES, CHAT_MESSAGES_STREAMING, CHATS, StreamChunk

#: Below the 500-writes-per-commit limit, with room for the message itself.
_BATCH = 450


class LostOwnership(Exception):
    """The message is no longer streaming under this run (retried, or taken over)."""


def chunk_id(message_id: str, index: int) -> str:
    return f"{message_id}_{index:06d}"


def _message_ref(db: firestore.Client, message_id: str) -> firestore.DocumentReference:
    return db.collection(CHAT_MESSAGES).document(message_id)


def _chunks_query(db: firestore.Client, message_id: str) -> firestore.Query:
    return db.collection(CHAT_MESSAGES_STREAMING).where(
        filter=firestore.FieldFilter("message", "==", message_id)
    )


def answer_in_progress(db: firestore.Client) -> bool:
    """Whether any answer is waiting to start or streaming (one indexed read)."""
    query = db.collection(CHAT_MESSAGES).where(
        filter=firestore.FieldFilter("status", "in", ["ready", "streaming"])).limit(1)
    return any(True for _ in query.stream())


def get_message(db: firestore.Client, message_id: str) -> dict[str, Any] | None:
    snap = _message_ref(db, message_id).get()
    return snap.to_dict() if snap.exists else None


def chat_messages(db: firestore.Client, chat_id: str) -> list[tuple[str, dict[str, Any]]]:
    """All messages of a chat in message_index order.

    Sorted here rather than with order_by so the query needs only the
    automatic single-field index on `chat`; a chat holds few messages.
    """
    query = db.collection(CHAT_MESSAGES).where(filter=firestore.FieldFilter("chat", "==", chat_id))
    docs = [(d.id, d.to_dict()) for d in query.stream()]
    docs.sort(key=lambda item: item[1].get("message_index", 0))
    return docs


def claim(
    db: firestore.Client, message_id: str, run_id: str, lease_expires: datetime
) -> dict[str, Any] | None:
    """Take a `ready` message for this run; None if it is not `ready` (a
    duplicate delivery or a racing generator got there first)."""
    ref = _message_ref(db, message_id)

    @firestore.transactional
    def run(tx: firestore.Transaction) -> dict[str, Any] | None:
        snap = ref.get(transaction=tx)
        if not snap.exists:
            return None
        msg = snap.to_dict()
        if msg.get("status") != "ready":
            return None
        update = {
            "status": "streaming",
            "run_id": run_id,
            "lease_expires": lease_expires,
            "attempts": int(msg.get("attempts") or 0) + 1,
        }
        tx.update(ref, update)
        return {**msg, **update}

    return run(db.transaction())


def _check_owner(tx: firestore.Transaction, ref: firestore.DocumentReference, run_id: str) -> None:
    snap = ref.get(transaction=tx)
    if not snap.exists or snap.get("status") != "streaming" or snap.get("run_id") != run_id:
        raise LostOwnership(ref.id)


def write_chunk(
    db: firestore.Client,
    message_id: str,
    run_id: str,
    chunk: StreamChunk,
    lease_expires: datetime | None = None,
) -> None:
    """Add one chunk (and renew the lease when `lease_expires` is given)."""
    ref = _message_ref(db, message_id)
    chunk_ref = db.collection(CHAT_MESSAGES_STREAMING).document(chunk_id(message_id, chunk.index))

    @firestore.transactional
    def run(tx: firestore.Transaction) -> None:
        _check_owner(tx, ref, run_id)
        tx.set(chunk_ref, chunk.to_dict())
        if lease_expires is not None:
            tx.update(ref, {"lease_expires": lease_expires})

    run(db.transaction())


def renew_lease(
    db: firestore.Client, message_id: str, run_id: str, lease_expires: datetime,
    fields: dict[str, Any] | None = None,
) -> None:
    """Extends the run's lease (with other `fields` in the same write)."""
    ref = _message_ref(db, message_id)

    @firestore.transactional
    def run(tx: firestore.Transaction) -> None:
        _check_owner(tx, ref, run_id)
        tx.update(ref, {**(fields or {}), "lease_expires": lease_expires})

    run(db.transaction())


def finish(
    db: firestore.Client,
    message_id: str,
    run_id: str,
    fields: dict[str, Any],
    chat_id: str | None = None,
    chat_fields: dict[str, Any] | None = None,
) -> None:
    """The run's last write: the message's final fields (and the chat's, in
    the same commit). Raises LostOwnership if the run no longer owns it."""
    ref = _message_ref(db, message_id)

    @firestore.transactional
    def run(tx: firestore.Transaction) -> None:
        _check_owner(tx, ref, run_id)
        tx.update(ref, fields)
        if chat_id and chat_fields:
            tx.update(db.collection(CHATS).document(chat_id), chat_fields)

    run(db.transaction())


def delete_chunks(db: firestore.Client, message_id: str) -> int:
    """Delete every chunk of a message, in batches; returns how many."""
    deleted = 0
    query = _chunks_query(db, message_id)
    while True:
        refs = [d.reference for d in query.limit(_BATCH).select([]).stream()]
        if not refs:
            return deleted
        batch = db.batch()
        for r in refs:
            batch.delete(r)
        batch.commit()
        deleted += len(refs)


def read_chunks(db: firestore.Client, message_id: str) -> list[dict[str, Any]]:
    """A message's chunks in index order (what a reader sees while it streams)."""
    chunks = [d.to_dict() for d in _chunks_query(db, message_id).stream()]
    chunks.sort(key=lambda c: c["index"])
    return chunks


TurnDecision = tuple[list[tuple[str, dict[str, Any]]], dict[str, Any]]


def append_turn(
    db: firestore.Client,
    chat_id: str,
    decide: Callable[[dict[str, Any] | None, dict[str, Any] | None], TurnDecision],
) -> None:
    """One transaction: read the chat and its last message, let `decide`
    (domain rules; it raises to refuse) return the messages to create and the
    chat fields to update, and write them all or nothing. Concurrent appends
    serialise on the chat document, so a second one sees the first's stub."""
    chat_ref = db.collection(CHATS).document(chat_id)

    @firestore.transactional
    def run(tx: firestore.Transaction) -> None:
        snap = chat_ref.get(transaction=tx)
        chat = snap.to_dict() if snap.exists else None
        last = None
        if chat is not None and int(chat.get("message_count") or 0) > 0:
            query = (
                db.collection(CHAT_MESSAGES)
                .where(filter=firestore.FieldFilter("chat", "==", chat_id))
                .where(filter=firestore.FieldFilter("message_index", "==", int(chat["message_count"]) - 1))
                .limit(1)
            )
            found = list(tx.get(query))
            last = found[0].to_dict() if found else None
        new_messages, chat_update = decide(chat, last)
        for message_id, doc in new_messages:
            tx.create(_message_ref(db, message_id), doc)
        tx.update(chat_ref, chat_update)

    run(db.transaction())


def reset_message(
    db: firestore.Client,
    message_id: str,
    decide: Callable[[dict[str, Any] | None, dict[str, Any] | None], dict[str, Any]],
) -> None:
    """One transaction: read the message and its chat, let `decide` return the
    message's new fields (it raises to refuse), and delete the message's old
    chunks in the same commit, so a new run never meets a stale chunk. A run
    that left more chunks than one commit takes has the rest removed by the
    engine when it claims the message."""
    ref = _message_ref(db, message_id)

    @firestore.transactional
    def run(tx: firestore.Transaction) -> None:
        snap = ref.get(transaction=tx)
        msg = snap.to_dict() if snap.exists else None
        chat = None
        if msg is not None and msg.get("chat"):
            chat_snap = db.collection(CHATS).document(msg["chat"]).get(transaction=tx)
            chat = chat_snap.to_dict() if chat_snap.exists else None
        update = decide(msg, chat)
        stale = list(tx.get(_chunks_query(db, message_id).limit(_BATCH).select([])))
        for d in stale:
            tx.delete(d.reference)
        tx.update(ref, update)

    run(db.transaction())
