"""Firestore adapter for chat messages and their streaming chunks.

Every write the engine makes while generating runs in a transaction that first
reads the message and checks the run still owns it (`run_id`, status
`streaming`): a generator that stalled, lost its lease and woke up after a
retry started a new run must not write over the new run's answer or chunks.

Those writes are also where the engine's text (a model's deltas, a failure)
becomes a stored string: each is made well-formed Unicode here, once, so a
lone surrogate from a provider can never make the answer unwritable.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud import firestore

from cardchat.ids import chunk_id
from cardchat.parsing.utf8 import well_formed_fields
from cardchat.repo import ratelimit as ratelimit_repo
from cardchat.repo import usage as usage_repo
from cardchat.repo.public_citations import citation_fields
from cardchat.repo.transactions import commit_batch, run_in_transaction
from cardchat.schema.accounts import ANSWER_USAGE, AnswerUsage, UsageDay
from cardchat.schema.documents import CHAT_MESSAGES, CHAT_MESSAGES_STREAMING, CHATS, now
from cardchat.schema.messages import ChatMessage, FinalAnswer, StreamChunk

#: Below the 500-writes-per-commit limit, with room for the message itself.
_BATCH = 450


class LostOwnership(Exception):
    """The message is no longer streaming under this run (retried, or taken over)."""


def _message_ref(db: firestore.Client, message_id: str) -> firestore.DocumentReference:
    return db.collection(CHAT_MESSAGES).document(message_id)


def _chunks_query(db: firestore.Client, message_id: str) -> firestore.Query:
    return db.collection(CHAT_MESSAGES_STREAMING).where(filter=firestore.FieldFilter("message", "==", message_id))


def answer_in_progress(db: firestore.Client) -> bool:
    """Whether any answer is waiting to start or streaming (one indexed read)."""
    query = (
        db.collection(CHAT_MESSAGES)
        .where(filter=firestore.FieldFilter("status", "in", ["ready", "streaming"]))
        .limit(1)
    )
    return any(True for _ in query.stream())


def get_message(db: firestore.Client, message_id: str) -> ChatMessage | None:
    snap = _message_ref(db, message_id).get()
    return ChatMessage.from_dict(snap.to_dict() or {}) if snap.exists else None


def chat_messages(db: firestore.Client, chat_id: str) -> list[tuple[str, ChatMessage]]:
    """All messages of a chat (id, message) in message_index order.

    Sorted here rather than with order_by so the query needs only the
    automatic single-field index on `chat`; a chat holds few messages.
    """
    query = db.collection(CHAT_MESSAGES).where(filter=firestore.FieldFilter("chat", "==", chat_id))
    docs = [(d.id, ChatMessage.from_dict(d.to_dict() or {})) for d in query.stream()]
    docs.sort(key=lambda item: item[1].message_index)
    return docs


#: How long take_run keeps trying while the message stays `ready` but its
#: write cannot land (another writer, or a transaction's lock, in the way).
#: Far beyond any lock a request holds; far below generateAnswer's timeout.
TAKE_RUN_PATIENCE_S = 60.0
#: Longest pause between two tries (full jitter below it, doubling from 50 ms).
_TAKE_RUN_MAX_PAUSE_S = 2.0


def take_run(
    db: firestore.Client,
    message_id: str,
    run_id: str,
    lease_expires: datetime | Callable[[], datetime],
) -> ChatMessage | None:
    """Take a `ready` message for this run (the message as taken); None if it is not `ready` (a
    duplicate delivery or a racing generator got there first).

    A compare-and-set, not a transaction: read the message, then update it
    only if it is unchanged since that read (its update_time). Two
    transactions taking it that both read it deadlock under pessimistic locking (the
    emulator's, and the server SDKs' in production) until the lock times out:
    both could abort on every attempt, and a take that ran out of attempts
    failed its delivery instead of skipping it. A precondition write holds no
    lock between read and write: of two racers exactly one write lands; the
    other's fails its precondition, and its re-read finds the message taken.
    A write that could not land for a lock (ABORTED) is tried again after a
    jittered pause until the message is no longer `ready` (another run took
    it: skipped) or TAKE_RUN_PATIENCE_S have passed.

    `lease_expires` may be a function, asked on each try, so that a take
    that waited still starts with its whole lease.
    """
    ref = _message_ref(db, message_id)
    give_up = time.monotonic() + TAKE_RUN_PATIENCE_S
    pause = 0.05
    while True:
        snap = ref.get()
        msg = snap.to_dict() if snap.exists else None
        if msg is None or msg.get("status") != "ready":
            return None
        update = {
            "status": "streaming",
            "run_id": run_id,
            "lease_expires": lease_expires() if callable(lease_expires) else lease_expires,
            "attempts": int(msg.get("attempts") or 0) + 1,
        }
        try:
            ref.update(update, option=db.write_option(last_update_time=snap.update_time))
            return ChatMessage.from_dict({**msg, **update})
        except (gexc.FailedPrecondition, gexc.NotFound):
            if time.monotonic() > give_up:
                raise
            # another write landed since our read: the re-read says whose
        except gexc.Aborted:
            if time.monotonic() > give_up:
                raise
            time.sleep(random.uniform(0, pause))
            pause = min(pause * 2, _TAKE_RUN_MAX_PAUSE_S)


def _owned(snap: Any, run_id: str, status: str = "streaming") -> bool:
    return bool(snap.exists and snap.get("status") == status and snap.get("run_id") == run_id)


def _check_owner(tx: firestore.Transaction, ref: firestore.DocumentReference, run_id: str) -> None:
    if not _owned(ref.get(transaction=tx), run_id):
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

    def run(tx: firestore.Transaction) -> None:
        _check_owner(tx, ref, run_id)
        tx.set(chunk_ref, well_formed_fields(chunk.to_dict()))
        if lease_expires is not None:
            tx.update(ref, {"lease_expires": lease_expires})

    # the chunk's id is fixed: writing it again after a lost outcome is harmless
    run_in_transaction(db, run, ambiguous=True)


def renew_lease(
    db: firestore.Client,
    message_id: str,
    run_id: str,
    lease_expires: datetime,
    fields: dict[str, Any] | None = None,
) -> None:
    """Extends the run's lease (with other `fields` in the same write)."""
    ref = _message_ref(db, message_id)

    @firestore.transactional
    def run(tx: firestore.Transaction) -> None:
        _check_owner(tx, ref, run_id)
        tx.update(ref, well_formed_fields({**(fields or {}), "lease_expires": lease_expires}))

    run(db.transaction())


def finish(
    db: firestore.Client,
    message_id: str,
    run_id: str,
    answer: FinalAnswer,
    chat_id: str | None = None,
    public_citations: Mapping[str, str] | None = None,
    usage_day: UsageDay | None = None,
    answer_usage: AnswerUsage | None = None,
    when: datetime | None = None,
) -> None:
    """The run's last write: its `answer` (and with `chat_id`, the chat's last_updated, `when`, and
    the `public_citations` it adds; a complete answer's answer_usage and what it adds to its owner's
    daily usage, in the same commit, so an answer is counted exactly once). Raises LostOwnership if the
    run no longer owns it. A commit whose outcome was lost is tried again, and
    finds its own final write if it landed."""
    ref = _message_ref(db, message_id)
    fields = final_fields(answer)

    def run(tx: firestore.Transaction) -> None:
        snap = ref.get(transaction=tx)
        if _owned(snap, run_id, answer.status):
            return  # an earlier try landed, its usage counted with it: its outcome was lost on the way
        if not _owned(snap, run_id):
            raise LostOwnership(ref.id)
        tx.update(ref, well_formed_fields(fields))
        if chat_id:
            touched = {"last_updated": when or now(), **citation_fields(public_citations or {})}
            tx.update(db.collection(CHATS).document(chat_id), well_formed_fields(touched))
        if usage_day is not None:
            usage_repo.add_in(tx, db, usage_day)
        if answer_usage is not None:
            tx.set(db.collection(ANSWER_USAGE).document(message_id), answer_usage.to_dict())

    run_in_transaction(db, run, ambiguous=True)


def final_fields(answer: FinalAnswer) -> dict[str, Any]:
    """The message's fields a run's last write sets: the lease and any wait given up; a failed answer
    keeps what its stub said (its model), a complete one says what its readers see of it."""
    fields: dict[str, Any] = {
        "status": answer.status,
        "content": answer.content,
        "error": answer.error,
        "lease_expires": None,
        "provider_wait": None,
    }
    if answer.status != "complete":
        return fields
    return {
        **fields,
        "model": answer.model,
        "usage": asdict(answer.usage) if answer.usage else None,
        "uncited_claims": answer.uncited_claims,
        "sources": list(answer.sources),
        "coverage": answer.coverage,
        "citation_checks": answer.citation_checks,
        "timings": asdict(answer.timings) if answer.timings else None,
        "dropped_turns": answer.dropped_turns,
        "cut_off": answer.cut_off,
    }


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
        # deleting again is harmless: a commit whose outcome was lost is simply sent again
        commit_batch(batch)
        deleted += len(refs)


def read_chunks(db: firestore.Client, message_id: str) -> list[dict[str, Any]]:
    """A message's chunks in index order (what a reader sees while it streams)."""
    chunks = [d.to_dict() or {} for d in _chunks_query(db, message_id).stream()]
    chunks.sort(key=lambda c: c["index"])
    return chunks


@dataclass(frozen=True)
class TurnDecision:
    """What a turn's `decide` returns: the messages to create (id, document), the chat's
    fields to update, and the caller's admission to apply beside them."""

    messages: list[tuple[str, ChatMessage]]
    chat_fields: dict[str, Any]
    admission: ratelimit_repo.Ledger | None = None


@dataclass(frozen=True)
class ResetDecision:
    """What a retry's `decide` returns: the message's new fields, and the caller's admission."""

    fields: dict[str, Any]
    admission: ratelimit_repo.Ledger | None = None


def _chat_messages_in(tx: firestore.Transaction, db: firestore.Client, chat_id: str) -> list[ChatMessage]:
    """The chat's messages in order, the last one read in `tx`. A query in a transaction locks the
    whole collection on the emulator, so every other chat's answer would wait on a turn being
    posted: the history is a plain read, and only the message a turn's decision turns on (the
    last: still streaming or not) is read in `tx`. Turns serialise on the chat document, which
    the caller read in `tx` before this."""
    query = db.collection(CHAT_MESSAGES).where(filter=firestore.FieldFilter("chat", "==", chat_id))
    found = sorted(query.stream(), key=lambda d: (d.to_dict() or {}).get("message_index", 0))
    if not found:
        return []
    last = found[-1].reference.get(transaction=tx)
    docs = [d.to_dict() or {} for d in found[:-1]] + ([last.to_dict() or {}] if last.exists else [])
    return [ChatMessage.from_dict(d) for d in docs]


def append_turn(
    db: firestore.Client,
    chat_id: str,
    decide: Callable[[dict[str, Any] | None, list[ChatMessage]], TurnDecision],
    stub_id: str,
) -> None:
    """One transaction: read the chat and its messages, let `decide` (domain
    rules; it raises to refuse) return the messages to create, the chat
    fields to update and the admission to apply, and write them all or
    nothing. Concurrent appends serialise on the chat document, so a second
    one sees the first's stub. Asking for the stub's run is the caller's next step.
    A commit whose outcome was lost (transactions.AMBIGUOUS) is tried again:
    finding `stub_id` (the stub the decision creates) it knows it landed."""
    chat_ref = db.collection(CHATS).document(chat_id)

    def run(tx: firestore.Transaction) -> None:
        if _message_ref(db, stub_id).get(transaction=tx).exists:
            return  # an earlier try landed
        snap = chat_ref.get(transaction=tx)
        chat = snap.to_dict() if snap.exists else None
        messages = _chat_messages_in(tx, db, chat_id) if chat is not None else []
        decision = decide(chat, messages)
        ledger = decision.admission
        write_ledger = ratelimit_repo.read_in(tx, db, ledger) if ledger else None
        for message_id, message in decision.messages:
            tx.create(_message_ref(db, message_id), message.to_dict())
        tx.update(chat_ref, decision.chat_fields)
        if write_ledger:
            write_ledger()

    run_in_transaction(db, run, ambiguous=True)


def reset_message(
    db: firestore.Client,
    message_id: str,
    decide: Callable[[ChatMessage | None, dict[str, Any] | None, list[ChatMessage]], ResetDecision],
) -> None:
    """One transaction: read the message, its chat and the chat's messages,
    let `decide` return the message's new fields and the admission to apply
    (it raises to refuse), and delete the message's old chunks in the same
    commit, so a new run never meets a stale chunk. A run that left more
    chunks than one commit takes has the rest removed by the engine when it
    takes the message. Asking for the answer's new run is the caller's next step."""
    ref = _message_ref(db, message_id)

    def run(tx: firestore.Transaction) -> None:
        snap = ref.get(transaction=tx)
        msg = ChatMessage.from_dict(snap.to_dict() or {}) if snap.exists else None
        chat = None
        messages: list[ChatMessage] = []
        if msg is not None and msg.chat:
            chat_snap = db.collection(CHATS).document(msg.chat).get(transaction=tx)
            chat = chat_snap.to_dict() if chat_snap.exists else None
            if chat is not None:
                messages = _chat_messages_in(tx, db, msg.chat)
        decision = decide(msg, chat, messages)
        ledger = decision.admission
        write_ledger = ratelimit_repo.read_in(tx, db, ledger) if ledger else None
        # a plain read, not a locking query (_chat_messages_in): no run writes this answer's chunks now
        stale = list(_chunks_query(db, message_id).limit(_BATCH).select([]).stream())
        for d in stale:
            tx.delete(d.reference)
        tx.update(ref, decision.fields)
        if write_ledger:
            write_ledger()

    run_in_transaction(db, run)
