"""Firestore adapter for chats, their owner-only data and hidden backgrounds.

`chats/{id}` is what a reader of the conversation sees; `chat_private/{id}`
(cards, collection, counts, the source of a branch) only its owner and admins.

The background lives in `chat_backgrounds/{chat_id}` plus `parts/{i}`: a
collection the rules close to every client, admins included. It is split into
parts because a large context window at 50 % is several MB of text and a
Firestore document holds at most 1 MiB.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from google.cloud import firestore

from cardchat.repo import ratelimit as ratelimit_repo
from cardchat.repo.public_citations import citation_fields
from cardchat.repo.transactions import run_in_transaction
from cardchat.schema.accounts import ANSWER_FEEDBACK, ANSWER_USAGE
from cardchat.schema.chat_sources import CHAT_SOURCES, ChatSource
from cardchat.schema.documents import (
    CHAT_AUTHORS,
    CHAT_BACKGROUND_PARTS,
    CHAT_BACKGROUNDS,
    CHAT_MESSAGES,
    CHAT_MESSAGES_STREAMING,
    CHAT_PRIVATE,
    CHAT_VIEWERS,
    CHATS,
    Chat,
    ChatBackground,
    ChatPrivate,
)
from cardchat.schema.messages import ChatMessage

#: Characters per background part: under 1 MiB even if every character needed
#: the 4 bytes UTF-8 allows.
PART_CHARS = 250_000
#: Writes per batch, under Firestore's 500.
_BATCH = 400


def split_parts(text: str, size: int = PART_CHARS) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def write_new_chat(
    db: firestore.Client,
    chat_id: str,
    chat: Chat,
    private: ChatPrivate,
    background: ChatBackground,
    background_text: str,
    messages: Sequence[tuple[str, ChatMessage]],
    ledger: ratelimit_repo.Ledger | None = None,
    source: ChatSource | None = None,
) -> None:
    """Chat, its private data, background, source (the card ids follow-ups
    rank) and first messages in one atomic commit: a reader never sees a chat
    without its background, or a stub without its chat. With a `ledger` the
    commit is a transaction that also admits the caller (rate-limit slot,
    token reservation); a refusal there writes nothing."""
    parts = split_parts(background_text)
    background.parts = len(parts)
    bg_ref = db.collection(CHAT_BACKGROUNDS).document(chat_id)

    def put(writer: firestore.WriteBatch | firestore.Transaction) -> None:
        writer.set(db.collection(CHATS).document(chat_id), chat.to_dict())
        writer.set(db.collection(CHAT_PRIVATE).document(chat_id), private.to_dict())
        writer.set(bg_ref, background.to_dict())
        for i, part in enumerate(parts):
            writer.set(bg_ref.collection(CHAT_BACKGROUND_PARTS).document(f"{i:04d}"), {"text": part})
        for message_id, message in messages:
            writer.set(db.collection(CHAT_MESSAGES).document(message_id), message.to_dict())
        if source is not None:
            writer.set(db.collection(CHAT_SOURCES).document(chat_id), source.to_dict())

    if ledger is None:
        batch = db.batch()
        put(batch)
        batch.commit()
    else:

        def run(tx: firestore.Transaction) -> None:
            write_ledger = ratelimit_repo.read_in(tx, db, ledger)
            put(tx)
            write_ledger()

        run_in_transaction(db, run)


def write_branch(
    db: firestore.Client,
    chat_id: str,
    chat: Chat,
    private: ChatPrivate,
    background: ChatBackground,
    background_text: str,
    history: Sequence[tuple[str, ChatMessage]],
    first: Sequence[tuple[str, ChatMessage]],
    ledger: ratelimit_repo.Ledger | None = None,
    source: ChatSource | None = None,
) -> None:
    """A branch (chat/branch.py): its copied history first, in batches (a long
    conversation outgrows one), then the chat, background and new turn in one
    batch as write_new_chat does. Until that last commit the copied messages
    belong to no chat, so no client can read them; if it fails they are removed."""
    refs = [db.collection(CHAT_MESSAGES).document(message_id) for message_id, _ in history]
    try:
        for start in range(0, len(history), _BATCH):
            batch = db.batch()
            for ref, (_, message) in zip(refs[start : start + _BATCH], history[start : start + _BATCH]):
                batch.set(ref, message.to_dict())
            batch.commit()
        write_new_chat(db, chat_id, chat, private, background, background_text, first, ledger, source)
    except Exception:
        for start in range(0, len(refs), _BATCH):
            batch = db.batch()
            for ref in refs[start : start + _BATCH]:
                batch.delete(ref)
            batch.commit()
        raise


def background_tokens(db: firestore.Client, chat_id: str) -> int | None:
    """The size of a chat's hidden background in tokens (its server-only
    head document), None for a chat that has none. It only shrinks, when
    chat/recheck.py withdraws cards."""
    snap = db.collection(CHAT_BACKGROUNDS).document(chat_id).get()
    return int(snap.get("tokens") or 0) if snap.exists else None


def read_background(db: firestore.Client, chat_id: str) -> str:
    return read_background_and_head(db, chat_id)[0]


def read_background_and_head(db: firestore.Client, chat_id: str) -> tuple[str, dict[str, Any]]:
    """A chat's hidden background and its head document (ChatBackground: the
    packed cards' stamps among it), in the reads read_background makes."""
    bg_ref = db.collection(CHAT_BACKGROUNDS).document(chat_id)
    head = bg_ref.get()
    if not head.exists:
        raise LookupError(f"chat {chat_id} has no background")
    n = int(head.get("parts"))
    refs = [bg_ref.collection(CHAT_BACKGROUND_PARTS).document(f"{i:04d}") for i in range(n)]
    texts = {snap.id: snap.get("text") for snap in db.get_all(refs)}
    return "".join(texts[f"{i:04d}"] for i in range(n)), head.to_dict() or {}


def card_stamp_fields(stamps: dict[str, int]) -> dict[str, Any]:
    """Head fields (write_context) setting these cards' ChatBackground.card_updated, the others' kept."""
    from google.cloud.firestore_v1.field_path import FieldPath

    return {FieldPath("card_updated", c).to_api_repr(): s for c, s in stamps.items()}


def set_card_stamps(db: firestore.Client, chat_id: str, card_updated: dict[str, int]) -> None:
    """ChatBackground.card_updated after a check found cards written but their text as packed."""
    db.collection(CHAT_BACKGROUNDS).document(chat_id).update({"card_updated": card_updated})


def _delete_query(db: firestore.Client, query: firestore.Query) -> int:
    deleted = 0
    while True:
        docs = list(query.limit(_BATCH).stream())
        if not docs:
            return deleted
        batch = db.batch()
        for d in docs:
            batch.delete(d.reference)
        batch.commit()
        deleted += len(docs)


def delete_chat(db: firestore.Client, chat_id: str) -> None:
    """Everything of a chat: its readers' search entries and chunks first, the chat document
    last, so a half-finished delete still shows the chat and can be repeated."""
    from cardchat.repo import chat_search  # it reads the messages and viewers deleted below

    chat_search.remove_chat(db, chat_id)
    bg_ref = db.collection(CHAT_BACKGROUNDS).document(chat_id)
    queries = [
        db.collection(CHAT_MESSAGES_STREAMING).where(filter=firestore.FieldFilter("chat", "==", chat_id)),
        db.collection(CHAT_MESSAGES).where(filter=firestore.FieldFilter("chat", "==", chat_id)),
        bg_ref.collection(CHAT_BACKGROUND_PARTS),
        db.collection(ANSWER_FEEDBACK).where(filter=firestore.FieldFilter("chat", "==", chat_id)),
        db.collection(ANSWER_USAGE).where(filter=firestore.FieldFilter("chat", "==", chat_id)),
        db.collection(CHAT_VIEWERS).where(filter=firestore.FieldFilter("chat", "==", chat_id)),
    ]
    with ThreadPoolExecutor(max_workers=len(queries)) as pool:
        list(pool.map(lambda q: _delete_query(db, q), queries))
    bg_ref.delete()
    db.collection(CHAT_AUTHORS).document(chat_id).delete()
    db.collection(CHAT_SOURCES).document(chat_id).delete()
    db.collection(CHAT_PRIVATE).document(chat_id).delete()
    db.collection(CHATS).document(chat_id).delete()


def _get(db: firestore.Client, firestore_collection: str, chat_id: str) -> dict[str, Any] | None:
    snap = db.collection(firestore_collection).document(chat_id).get()
    return snap.to_dict() if snap.exists else None


def get_chat(db: firestore.Client, chat_id: str) -> dict[str, Any] | None:
    return _get(db, CHATS, chat_id)


def holding_cards_of(db: firestore.Client, owner: str, limit: int) -> list[str]:
    """Chats whose background holds a card of `owner` (ChatPrivate.card_owners names them), at most
    `limit`: a server-only query, for withdrawing a leaver's cards at once."""
    query = db.collection(CHAT_PRIVATE).where(filter=firestore.FieldFilter("card_owners", "array_contains", owner))
    return [d.id for d in query.limit(limit).select([]).stream()]


def forget_cards(db: firestore.Client, chat_id: str, card_ids: Sequence[str]) -> None:
    """`card_ids`, withdrawn with their owner's account, out of what the server keeps of the chat
    beside its background: the source's ids, the owner's pins, exclusions and per-turn record, the
    background's stamps. Their numbers stay, as "" in card_ids (recheck did that)."""
    gone = set(card_ids)
    refs = [db.collection(c).document(chat_id) for c in (CHAT_SOURCES, CHAT_PRIVATE, CHAT_BACKGROUNDS)]
    found = {s.reference.parent.id: s.to_dict() or {} for s in db.get_all(refs) if s.exists} if gone else {}
    batch = db.batch()
    if CHAT_SOURCES in found:
        batch.update(refs[0], {"card_ids": firestore.ArrayRemove(sorted(gone))})
    if (private := found.get(CHAT_PRIVATE)) is not None:
        turns = [
            {**t, "added": [{**a, "card": ""} if a.get("card") in gone else a for a in t.get("added") or []]}
            for t in private.get("context_turns") or []
        ]
        remove = firestore.ArrayRemove(sorted(gone))
        batch.update(refs[1], {"pinned_cards": remove, "excluded_cards": remove, "context_turns": turns})
    if (head := found.get(CHAT_BACKGROUNDS)) is not None:
        stamps = {c: t for c, t in (head.get("card_updated") or {}).items() if c not in gone}
        changed = [c for c in head.get("changed_cards") or [] if c not in gone]
        batch.update(refs[2], {"card_updated": stamps, "changed_cards": changed})
    if found:
        batch.commit()


def get_private(db: firestore.Client, chat_id: str) -> dict[str, Any] | None:
    return _get(db, CHAT_PRIVATE, chat_id)


def replace_background(
    db: firestore.Client,
    chat_id: str,
    text: str,
    tokens: int,
    card_ids: list[str],
    card_owners: list[str],
    edits: dict[str, Any] | None = None,
    stale: Sequence[str] = (),
) -> dict[str, Any]:
    """The background after cards were withdrawn from it or re-packed (chat/recheck.py), with the
    counts and owners that follow and the `stale` numbers out of Chat.public_citations, in one
    atomic batch. `edits`: the re-packed cards' record (`card_updated`, `changed_cards` of the
    head; `cards_changed` of the owner's count). Returns the ChatPrivate fields written."""
    from cardchat.retrieval.background import card_numbers

    edits = dict(edits or {})
    packed = len(card_numbers(text))
    fields = {"card_ids": card_ids, "card_owners": card_owners, "cards_packed": packed}
    if "cards_changed" in edits:
        fields["cards_changed"] = edits.pop("cards_changed")
    return write_context(db, chat_id, text, tokens, fields, edits, stale)


def get_source(db: firestore.Client, chat_id: str) -> dict[str, Any] | None:
    """The chat's server-only source (chat_sources.ChatSource), None for a chat made before sources were kept."""
    return _get(db, CHAT_SOURCES, chat_id)


def write_context(
    db: firestore.Client,
    chat_id: str,
    text: str,
    tokens: int,
    private_fields: dict[str, Any],
    head_fields: dict[str, Any] | None = None,
    stale: Sequence[str] = (),
) -> dict[str, Any]:
    """A changed background (cards withdrawn or re-packed: chat/recheck.py; a follow-up's
    additions: generation/turn_context.py) with the owner's record of it, `head_fields` of its
    server-only head and the `stale` numbers out of the links visitors may follow, in one
    atomic batch. It never adds a link (an answer's final write does), so a follow-up or a
    pin changes nothing a reader of the chat reads. Returns the ChatPrivate fields it wrote, so
    that the caller's copy stays as stored without reading it again."""
    bg_ref = db.collection(CHAT_BACKGROUNDS).document(chat_id)
    old = int(bg_ref.get().get("parts") or 0)
    parts = split_parts(text)
    batch = db.batch()
    for i, part in enumerate(parts):
        batch.set(bg_ref.collection(CHAT_BACKGROUND_PARTS).document(f"{i:04d}"), {"text": part})
    for i in range(len(parts), old):
        batch.delete(bg_ref.collection(CHAT_BACKGROUND_PARTS).document(f"{i:04d}"))
    batch.update(bg_ref, {**(head_fields or {}), "tokens": tokens, "parts": len(parts)})
    written = {**private_fields, "background_tokens": tokens}
    batch.update(db.collection(CHAT_PRIVATE).document(chat_id), written)
    if stale:
        batch.update(db.collection(CHATS).document(chat_id), citation_fields({n: None for n in stale}))
    batch.commit()
    return written


def drop_public_citations(db: firestore.Client, chat_id: str, stale: Sequence[str]) -> None:
    """Chat.public_citations without the `stale` numbers (chat/recheck.py)."""
    db.collection(CHATS).document(chat_id).update(citation_fields({n: None for n in stale}))


def set_card_owners(db: firestore.Client, chat_id: str, owners: list[str]) -> None:
    """ChatPrivate.card_owners of a chat packed before owners were kept, as first checked."""
    db.collection(CHAT_PRIVATE).document(chat_id).update({"card_owners": owners})


def set_title(db: firestore.Client, chat_id: str, title: str) -> None:
    ref = db.collection(CHATS).document(chat_id)
    try:
        ref.update({"title": title})
    except Exception as e:  # the chat was deleted meanwhile: nothing to retitle
        if type(e).__name__ != "NotFound":
            raise
