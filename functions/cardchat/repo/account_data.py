"""Everything Firestore holds of one user, removed step by step (deleteAccount).

Each step is idempotent and the steps run in an order in which every state
between two of them is one the product already knows: the retrieval index's
heads go first, so from then on a reader sees "no index" (never half of one)
and rebuilds from whatever cards are left; the cards and their vectors go
next, the orphaned index shards after them, the user's own records and the
mentions of their uid in other users' documents last. An interrupted deletion
is finished by running all the steps again.

What is kept on purpose: other users' chats keep their own record of what they
asked for (a collection naming this owner resolves to no cards). A card of this
user in another user's chat's background is withdrawn by the deletion itself
(chat/recheck.withdraw_cards_of, handed in by access/account_deletion.py).

`account_deletions/{uid}` marks a deletion whose later pass is due: the steps run
again then, for what a still-valid ID token wrote after the account went.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from google.cloud.firestore import ArrayRemove, FieldFilter

from ..embeddings.card_quota import CARD_WRITE_MINUTES, EMBEDDING_SKIPS
from ..schema.accounts import (
    ACCESS_TOKEN_HASHES,
    ACCESS_TOKEN_OWNERS,
    ACCESS_TOKENS,
    ACCOUNT_DELETIONS,
    ANSWER_FEEDBACK,
    ANSWER_USAGE,
    CARD_SOURCES,
    USAGE_DAILY,
    USER_API_KEYS,
    VIEWER_LOOKUPS,
    AccountDeletion,
)
from ..schema.card_syncs import CARD_SYNC_PATHS, CARD_SYNC_RUNS, CARD_SYNCS
from ..schema.documents import (
    CARD_EMBEDDINGS,
    CARDS,
    CHAT_VIEWERS,
    CHATS,
    RATE_LIMITS,
    RATE_WINDOWS,
    RETRIEVAL_INDEX,
    RETRIEVAL_INDEX_SHARDS,
    USERS,
)
from ..schema.embedding_queue import EMBEDDING_HANDOVERS, EMBEDDING_PROGRESS, EMBEDDING_QUEUE, EMBEDDING_WORKERS
from ..schema.saved_collections import SAVED_COLLECTIONS
from . import chat_search
from . import chats as chats_repo
from .retrieval_index.shards import index_key

if TYPE_CHECKING:
    from google.cloud import firestore

#: Deletes per batch, under Firestore's 500 writes.
_BATCH = 400

#: Per-user collections keyed by the uid itself.
_KEYED_BY_UID = (
    USER_API_KEYS,
    RATE_LIMITS,
    VIEWER_LOOKUPS,
    CARD_SOURCES,
    EMBEDDING_WORKERS,
    EMBEDDING_PROGRESS,
    EMBEDDING_HANDOVERS,
    CARD_WRITE_MINUTES,
    ACCESS_TOKEN_OWNERS,
)
#: Per-user collections whose documents name their user in `owner`.
_OWNED = (
    ACCESS_TOKEN_HASHES,
    ACCESS_TOKENS,
    ANSWER_FEEDBACK,
    ANSWER_USAGE,
    USAGE_DAILY,
    EMBEDDING_QUEUE,
    EMBEDDING_SKIPS,
    SAVED_COLLECTIONS,
    CARD_SYNCS,
    CARD_SYNC_RUNS,
    CARD_SYNC_PATHS,
)
#: Other users' documents that may list this uid: (Firestore collection, array field).
_MENTIONS = (
    (CARDS, "viewers"),
    (CARD_SOURCES, "hidden_sharers"),
    (CARD_SOURCES, "accepted_sharers"),
    (VIEWER_LOOKUPS, "found"),
)


def _delete_where(db: firestore.Client, firestore_collection: str, field: str, value: str) -> int:
    """Deletes every document of `firestore_collection` whose `field` is `value`, a batch at a time."""
    return _delete_all(db, db.collection(firestore_collection).where(filter=FieldFilter(field, "==", value)))


def _delete_all(db: firestore.Client, query: firestore.Query) -> int:
    query = query.select([])
    deleted = 0
    while docs := list(query.limit(_BATCH).stream()):
        batch = db.batch()
        for d in docs:
            batch.delete(d.reference)
        batch.commit()
        deleted += len(docs)
    return deleted


def delete_index_heads(db: firestore.Client, uid: str) -> None:
    """Both heads of the user's retrieval index: readers see "no index" from now on; and the
    embedding worker's notice, so the cards' deletions find nothing left to update
    (repo/embed_batches.on_card_written)."""
    for public in (False, True):
        db.collection(RETRIEVAL_INDEX).document(index_key(uid, public)).delete()
    db.collection(EMBEDDING_WORKERS).document(uid).delete()


def delete_chats(db: firestore.Client, uid: str) -> None:
    """The user's chats with every document of each (repo/chats.py delete_chat)."""
    query = db.collection(CHATS).where(filter=FieldFilter("owner", "==", uid)).select([])
    while docs := list(query.limit(_BATCH).stream()):
        for d in docs:
            chats_repo.delete_chat(db, d.id)


def delete_cards(db: firestore.Client, uid: str) -> None:
    """The user's cards, public and shared ones included, and their vectors."""
    _delete_where(db, CARDS, "owner", uid)
    _delete_where(db, CARD_EMBEDDINGS, "owner", uid)


def delete_index(db: firestore.Client, uid: str) -> None:
    """The heads again (a worker racing the cards' deletion may have written one), then every shard."""
    delete_index_heads(db, uid)
    for public in (False, True):
        _delete_where(db, RETRIEVAL_INDEX_SHARDS, "owner", index_key(uid, public))


def delete_records(db: firestore.Client, uid: str) -> None:
    """The user's keys, tokens, limits, usage, feedback, sources, embedding bookkeeping."""
    for firestore_collection in _OWNED:
        _delete_where(db, firestore_collection, "owner", uid)
    # Subcollections outlive their parent document: the rate windows go before rate_limits/{uid}.
    _delete_all(db, db.collection(RATE_LIMITS).document(uid).collection(RATE_WINDOWS))
    batch = db.batch()
    for firestore_collection in _KEYED_BY_UID:
        batch.delete(db.collection(firestore_collection).document(uid))
    batch.commit()


def remove_mentions(db: firestore.Client, uid: str) -> None:
    """The uid out of other users' lists: chats shared with them (their chat_viewers docs),
    cards shared with them, hidden sharers, look-ups."""
    _delete_where(db, CHAT_VIEWERS, "viewer", uid)
    for firestore_collection, field in _MENTIONS:
        query = db.collection(firestore_collection).where(filter=FieldFilter(field, "array_contains", uid)).select([])
        while docs := list(query.limit(_BATCH).stream()):
            batch = db.batch()
            for d in docs:
                batch.update(d.reference, {field: ArrayRemove([uid])})
            batch.commit()


def delete_search_index(db: firestore.Client, uid: str) -> None:
    """The user's index of the words of their chats and of chats shared with them (their own
    chats left every other reader's index with delete_chats)."""
    chat_search.delete_index(db, uid)


def delete_user_doc(db: firestore.Client, uid: str) -> None:
    db.collection(USERS).document(uid).delete()


#: The steps in the order they must run (module docstring); deleteAccount runs them all.
STEPS: tuple[Callable[[firestore.Client, str], None], ...] = (
    delete_index_heads,
    delete_chats,
    delete_cards,
    delete_index,
    delete_records,
    remove_mentions,
    delete_search_index,
    delete_user_doc,
)


def mark_later_pass(db: firestore.Client, uid: str, due: datetime) -> None:
    """The deletion of `uid` runs again at `due` (account_deletions/{uid})."""
    db.collection(ACCOUNT_DELETIONS).document(uid).set(AccountDeletion(due).to_dict())


def later_passes_due(db: firestore.Client, now: datetime, limit: int) -> list[str]:
    """The uids whose later pass is due at `now`, at most `limit`, the longest due first."""
    query = db.collection(ACCOUNT_DELETIONS).where(filter=FieldFilter("due", "<=", now)).order_by("due")
    return [d.id for d in query.limit(limit).select([]).stream()]


def end_later_pass(db: firestore.Client, uid: str) -> None:
    db.collection(ACCOUNT_DELETIONS).document(uid).delete()
