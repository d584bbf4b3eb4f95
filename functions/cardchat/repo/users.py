"""users/{uid}: written only by the server or the admin CLI."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cardchat.schema.documents import USERS, UserDoc

if TYPE_CHECKING:
    from cardchat.repo.db import Db


def get_user(db: Db, uid: str) -> dict[str, Any] | None:
    snap = db.collection(USERS).document(uid).get()
    return snap.to_dict() if snap.exists else None


def set_user(db: Db, uid: str, user: UserDoc) -> None:
    db.collection(USERS).document(uid).set(user.to_dict(), merge=True)
