"""Who may use the AI: users/{uid}.may_use_ai and admin, set by the admin CLI."""

from __future__ import annotations

from typing import Any

from cardchat.schema import UserDoc


def grant_ai(db: Any, uid: str, allow: bool = True, admin: bool | None = None) -> UserDoc:
    """users/{uid}.may_use_ai (and admin, unless None: then kept as stored)."""
    from cardchat.repo.users import get_user, set_user

    stored = get_user(db, uid) or {}
    doc = UserDoc(may_use_ai=allow, admin=bool(stored.get("admin", False)) if admin is None else admin)
    set_user(db, uid, doc)
    return doc
