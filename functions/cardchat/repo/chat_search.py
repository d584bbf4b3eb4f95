"""Each reader's index of the words of the chats they may read (retrieval/chat_terms.py):
their own chats and those shared with them, never a hidden background.

Kept in step with the chats: a complete answer adds its turn to the index of the
chat's owner and of each viewer (the whole chat, for a reader who has none of it
yet: a branch, a continued chat); sharing adds the whole chat to a new viewer's
index and unsharing takes it out; deleting a chat takes it out of every reader's
(repo/chats.delete_chat), deleting an account deletes the reader's own index
(repo/account_data.py). Writes are merges of array unions and removals, so two
answers completing at once both land; a search re-checks access anyway.

What others can put in a reader's index is bounded, and kept apart from the reader's own:
a chat shared with them adds at most MAX_SHARED_POSTINGS (counted in its head entry), at most
MAX_SHARED_CHATS shared chats are indexed, and their postings go to shards of their own
(`{uid}_s{n}`), so a stranger who shares chats full of chosen words fills only those, never the
shards of the reader's own chats. Each reader's index is written on its own: one reader's full
index fails only their write (logged), never another reader's.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from google.cloud.firestore import DELETE_FIELD, ArrayRemove, ArrayUnion

from ..ids import chat_viewer_id
from ..retrieval import chat_terms
from ..schema.chat_search import CHAT_SEARCH, CHAT_SEARCH_MESSAGES, CHAT_SEARCH_SHARDS
from ..schema.documents import CHAT_MESSAGES, CHAT_VIEWERS, CHATS, MESSAGE_STATUS
from ..schema.messages import ChatMessage
from . import messages as messages_repo
from . import sharing

if TYPE_CHECKING:
    from google.cloud import firestore

#: Writes per batch, under Firestore's 500.
_BATCH = 400
#: Postings one shared chat adds to a reader's index at most (its owner's own index is not capped).
MAX_SHARED_POSTINGS = 5_000
#: Chats shared with a reader that their index holds at most; one shared later is not indexed.
MAX_SHARED_CHATS = 500

log = logging.getLogger(__name__)


def shard_id(uid: str, n: int, shared: bool = False) -> str:
    """A shard of `uid`'s own chats, or (`shared`) of the chats others share with them."""
    return f"{uid}_s{n}" if shared else f"{uid}_{n}"


def _indexed(message: ChatMessage, upto: int) -> bool:
    """A message a search may show: a question, or an answer complete, at most `upto`."""
    done = message.role == "user" or message.status == MESSAGE_STATUS["complete"]
    return message.message_index <= upto and done and bool(message.content)


def _texts_of(messages: Iterable[tuple[str, ChatMessage]], upto: int) -> list[tuple[int, str, str]]:
    """(message index, text, message id) of `messages` a search may show, up to `upto`."""
    return [(m.message_index, m.content, i) for i, m in messages if _indexed(m, upto)]


def _texts(db: firestore.Client, chat_id: str, upto: int) -> list[tuple[int, str, str]]:
    """(message index, text, message id) of the chat's messages a search may show, up to `upto`."""
    return _texts_of(messages_repo.chat_messages(db, chat_id), upto)


def _ids(
    db: firestore.Client, chat: dict[str, Any], chat_id: str, texts: list[tuple[int, str, str]]
) -> tuple[Any, dict[str, Any]]:
    """The write recording the ids of `texts`' messages (ChatSearchMessages)."""
    ids = {f"m{index}": message_id for index, _, message_id in texts}
    return db.collection(CHAT_SEARCH_MESSAGES).document(chat_id), {"chat": chat_id, "owner": chat["owner"], "ids": ids}


def _readers(db: firestore.Client, chat: dict[str, Any], chat_id: str) -> list[str]:
    return list(dict.fromkeys([chat["owner"], *sharing.viewers(db, chat_id)]))


def _heads(db: firestore.Client, uids: Sequence[str]) -> dict[str, dict[str, Any]]:
    refs = [db.collection(CHAT_SEARCH).document(u) for u in uids]
    return {s.id: (s.to_dict() or {}).get("chats") or {} for s in db.get_all(refs) if s.exists}


def _write(db: firestore.Client, writes: list[tuple[Any, dict[str, Any]]]) -> None:
    for start in range(0, len(writes), _BATCH):
        batch = db.batch()
        for ref, data in writes[start : start + _BATCH]:
            batch.set(ref, data, merge=True)
        batch.commit()


def _write_apart(db: firestore.Client, by_reader: dict[str, list[tuple[Any, dict[str, Any]]]]) -> None:
    """Each reader's writes in a batch of its own (at most a head and every shard): one that
    fails (an index past Firestore's document size) leaves that reader's index as it was and
    every other reader's written."""
    for writes in by_reader.values():
        try:
            _write(db, writes)
        except Exception:
            log.warning("chat search: the index of one reader was not updated", exc_info=True)


def _capped(by_shard: dict[int, dict[str, list[str]]], room: int) -> tuple[dict[int, dict[str, list[str]]], int]:
    """At most `room` of the postings of `by_shard`, in shard and term order, and how many."""
    kept: dict[int, dict[str, list[str]]] = {}
    taken = 0
    for n, by_term in by_shard.items():
        for term, ps in by_term.items():
            if taken >= room:
                return kept, taken
            ps = ps[: room - taken]
            kept.setdefault(n, {})[term] = ps
            taken += len(ps)
    return kept, taken


def _add(
    db: firestore.Client,
    chat: dict[str, Any],
    chat_id: str,
    uid: str,
    head: dict[str, Any],
    texts: Iterable[tuple[int, str, str]],
) -> list[tuple[Any, dict[str, Any]]]:
    """The writes adding `texts` of the chat to `uid`'s index: a chat shared with them within its caps."""
    key = chat_terms.chat_key(chat_id, {k: v.get("chat", "") for k, v in head.items()})
    shared = chat.get("owner") != uid
    entry: dict[str, Any] = {"chat": chat_id, "title": chat.get("title") or ""}
    by_shard = chat_terms.postings_by_shard(key, ((i, t) for i, t, _ in texts))
    if shared:
        if key not in head and sum(1 for v in head.values() if v.get("shared")) >= MAX_SHARED_CHATS:
            return []
        before = int((head.get(key) or {}).get("postings") or 0)
        by_shard, added = _capped(by_shard, max(0, MAX_SHARED_POSTINGS - before))
        entry |= {"shared": True, "postings": before + added}
    writes: list[tuple[Any, dict[str, Any]]] = [
        (db.collection(CHAT_SEARCH).document(uid), {"owner": uid, "chats": {key: entry}})
    ]
    for n, by_term in by_shard.items():
        union = {term: ArrayUnion(ps) for term, ps in by_term.items()}
        ref = db.collection(CHAT_SEARCH_SHARDS).document(shard_id(uid, n, shared))
        writes.append((ref, {"owner": uid, "p": union}))
    return writes


def index_answer(
    db: firestore.Client,
    chat_id: str,
    owner: str,
    title: str,
    messages: Sequence[tuple[str, ChatMessage]],
    index: int,
) -> None:
    """Answer `index` of `owner`'s chat (titled `title`) is complete: its turn into the index of
    every reader of the chat (the whole chat up to it, of `messages`, into that of a reader who has
    none of it yet). `messages` (id, message) are the answer's run's: nothing is read back."""
    chat = {"owner": owner, "title": title}
    readers = _readers(db, chat, chat_id)
    heads = _heads(db, readers)
    texts = _texts_of(messages, index)
    turn = [t for t in texts if t[0] in (index - 1, index)]
    _write(db, [_ids(db, chat, chat_id, texts)])
    by_reader = {}
    for uid in readers:
        head = heads.get(uid, {})
        known = any(v.get("chat") == chat_id for v in head.values())
        by_reader[uid] = _add(db, chat, chat_id, uid, head, turn if known else texts)
    _write_apart(db, by_reader)


def add_readers(db: firestore.Client, chat_id: str, uids: Sequence[str]) -> None:
    """The whole chat into the index of each of `uids` (a chat just shared with them)."""
    snap = db.collection(CHATS).document(chat_id).get()
    if not uids or not snap.exists:
        return
    chat, heads = snap.to_dict() or {}, _heads(db, uids)
    texts = _texts(db, chat_id, 1 << 62)
    _write(db, [_ids(db, chat, chat_id, texts)])
    _write_apart(db, {uid: _add(db, chat, chat_id, uid, heads.get(uid, {}), texts) for uid in uids})


def remove_readers(db: firestore.Client, chat_id: str, uids: Sequence[str]) -> None:
    """The chat out of the index of each of `uids`: its postings and its entry."""
    if not uids:
        return
    heads = _heads(db, uids)
    texts = [(m.message_index, m.content) for _, m in messages_repo.chat_messages(db, chat_id)]
    writes: list[tuple[Any, dict[str, Any]]] = []
    for uid, head in heads.items():
        keys = [k for k, v in head.items() if v.get("chat") == chat_id]
        for key in keys:
            # a shared chat indexed before shared shards existed has its postings with the reader's own
            for shared in dict.fromkeys((False, bool(head[key].get("shared")))):
                for n, by_term in chat_terms.postings_by_shard(key, texts).items():
                    gone = {term: ArrayRemove(ps) for term, ps in by_term.items()}
                    ref = db.collection(CHAT_SEARCH_SHARDS).document(shard_id(uid, n, shared))
                    writes.append((ref, {"owner": uid, "p": gone}))
            writes.append((db.collection(CHAT_SEARCH).document(uid), {"chats": {key: DELETE_FIELD}}))
    _write(db, writes)


def remove_chat(db: firestore.Client, chat_id: str) -> None:
    """The chat out of every reader's index (it is being deleted)."""
    snap = db.collection(CHATS).document(chat_id).get()
    if snap.exists:
        remove_readers(db, chat_id, _readers(db, snap.to_dict() or {}, chat_id))
    db.collection(CHAT_SEARCH_MESSAGES).document(chat_id).delete()


def read(db: firestore.Client, uid: str, shards: Iterable[int]) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """A reader's chats ({key: {chat, title}}) and the postings of every term of `shards`, by term key:
    those of their own chats' shards and of their shared chats' shards together."""
    refs = [db.collection(CHAT_SEARCH).document(uid)]
    for n in sorted(set(shards)):
        refs += [db.collection(CHAT_SEARCH_SHARDS).document(shard_id(uid, n, shared)) for shared in (False, True)]
    head: dict[str, Any] = {}
    postings: dict[str, list[str]] = {}
    for snap in db.get_all(refs):
        data = snap.to_dict() or {} if snap.exists else {}
        if snap.reference.parent.id == CHAT_SEARCH:
            head = data.get("chats") or {}
        else:
            for term, ps in (data.get("p") or {}).items():
                postings.setdefault(term, []).extend(ps)
    return head, postings


def messages_at(db: firestore.Client, wanted: Sequence[tuple[str, int]]) -> dict[tuple[str, int], dict[str, Any]]:
    """The messages at (chat, message index) of `wanted`, those indexed and still there: read by id."""
    chats = sorted({c for c, _ in wanted})
    refs = [db.collection(CHAT_SEARCH_MESSAGES).document(c) for c in chats]
    ids = {s.id: (s.to_dict() or {}).get("ids") or {} for s in db.get_all(refs) if s.exists} if refs else {}
    by_id = {ids[c][f"m{i}"]: (c, i) for c, i in wanted if f"m{i}" in ids.get(c, {})}
    refs = [db.collection(CHAT_MESSAGES).document(m) for m in by_id]
    found = {s.id: s.to_dict() or {} for s in db.get_all(refs) if s.exists} if refs else {}
    return {by_id[m]: d for m, d in found.items() if (d.get("chat"), d.get("message_index")) == by_id[m]}


def chats_of(db: firestore.Client, chat_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The chats documents of `chat_ids` that exist."""
    refs = [db.collection(CHATS).document(c) for c in chat_ids]
    return {s.id: s.to_dict() or {} for s in db.get_all(refs) if s.exists} if refs else {}


def viewing(db: firestore.Client, uid: str, chat_ids: Sequence[str]) -> set[str]:
    """Those of `chat_ids` shared with `uid` now (their viewer docs, as the rules look them up)."""
    refs = [db.collection(CHAT_VIEWERS).document(chat_viewer_id(c, uid)) for c in chat_ids]
    found = {s.id: (s.to_dict() or {}).get("chat") for s in db.get_all(refs) if s.exists} if refs else {}
    return {c for c in chat_ids if found.get(chat_viewer_id(c, uid)) == c}


def delete_index(db: firestore.Client, uid: str) -> None:
    """The reader's whole index (their account is being deleted)."""
    refs = [
        db.collection(CHAT_SEARCH_SHARDS).document(shard_id(uid, n, shared))
        for n in range(chat_terms.SHARDS)
        for shared in (False, True)
    ]
    refs.append(db.collection(CHAT_SEARCH).document(uid))
    for start in range(0, len(refs), _BATCH):
        batch = db.batch()
        for ref in refs[start : start + _BATCH]:
            batch.delete(ref)
        batch.commit()
