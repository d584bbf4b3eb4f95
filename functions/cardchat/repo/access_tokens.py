"""Firestore adapter for personal access tokens: access_tokens/{id} (the
owner's listing) and access_token_hashes/{sha256} (server-only)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from google.cloud import firestore
from google.cloud.firestore import FieldFilter

from cardchat.repo import ratelimit as ratelimit_repo
from cardchat.repo.transactions import run_in_transaction
from cardchat.schema.accounts import (
    ACCESS_TOKEN_HASHES,
    ACCESS_TOKEN_OWNERS,
    ACCESS_TOKENS,
    AccessToken,
    AccessTokenHash,
)
from cardchat.schema.documents import MCP_WINDOW


def create_within(
    db: firestore.Client, token_id: str, digest: str, listing: AccessToken, secret: AccessTokenHash, cap: int
) -> bool:
    """Both documents, if the owner holds fewer than `cap` tokens (False: nothing written).
    The count (ids only) and the writes are one transaction that also writes
    the owner's access_token_owners document: a query alone takes no lock
    against a token added meanwhile, so two creations at once would both
    count the same tokens; both writing that document makes the second retry
    and count the first's."""
    owner_ref = db.collection(ACCESS_TOKEN_OWNERS).document(listing.owner)
    held = db.collection(ACCESS_TOKENS).where(filter=FieldFilter("owner", "==", listing.owner)).select([]).limit(cap)

    def body(tx: firestore.Transaction) -> bool:
        owner_ref.get(transaction=tx)
        if sum(1 for _ in held.stream(transaction=tx)) >= cap:
            return False
        tx.create(db.collection(ACCESS_TOKENS).document(token_id), listing.to_dict())
        tx.create(db.collection(ACCESS_TOKEN_HASHES).document(digest), secret.to_dict())
        tx.set(owner_ref, {"last_created": listing.created})
        return True

    return run_in_transaction(db, body)


def find_by_id(db: firestore.Client, token_id: str) -> tuple[str, str] | None:
    """(owner, hash) of the token `token_id`, or None."""
    query = db.collection(ACCESS_TOKEN_HASHES).where(filter=FieldFilter("token_id", "==", token_id)).limit(1)
    for snap in query.stream():
        return str(snap.get("owner")), snap.id
    return None


def get_hash(db: firestore.Client, digest: str) -> dict[str, Any] | None:
    snap = db.collection(ACCESS_TOKEN_HASHES).document(digest).get()
    return snap.to_dict() if snap.exists else None


def delete(db: firestore.Client, token_id: str, digest: str) -> None:
    """Both documents in one batch: from its commit on, the hash is not found."""
    batch = db.batch()
    batch.delete(db.collection(ACCESS_TOKENS).document(token_id))
    batch.delete(db.collection(ACCESS_TOKEN_HASHES).document(digest))
    batch.commit()


def use(
    db: firestore.Client, digest: str, change: Callable[[list[Any]], list[Any]], when: datetime
) -> tuple[str, str] | None:
    """The owner and scope of the token hashed to `digest`, having spent one request of
    the owner's MCP window (every token of theirs spends the same one;
    `change` takes its times and may raise to refuse: then nothing is written)
    and stamped the token's listing's last_used; None when there is no such
    token. One transaction: a revocation committed before it makes it find
    nothing, one committed during it makes it retry and find nothing."""
    ref = db.collection(ACCESS_TOKEN_HASHES).document(digest)

    def run(tx: firestore.Transaction) -> tuple[str, str] | None:
        snap = ref.get(transaction=tx)
        data = (snap.to_dict() or {}) if snap.exists else {}
        owner = str(data.get("owner") or "")
        if not owner:
            return None
        window = ratelimit_repo.window_ref(db, owner, MCP_WINDOW)
        recent = change(ratelimit_repo.read_window(window.get(transaction=tx)))
        tx.set(window, {"recent": recent})
        tx.update(db.collection(ACCESS_TOKENS).document(str(data.get("token_id"))), {"last_used": when})
        return owner, str(data.get("scope") or "read")

    # two requests of one user's clients at once must both be answered, not fail on contention
    return run_in_transaction(db, run)
