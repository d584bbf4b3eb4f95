"""Firebase Auth accounts, looked up with the Admin SDK (the Auth emulator
in tests): who an email address belongs to, and how to name a uid.

Emails are read here and handed back to the owner's Share dialog only; they
are never written to Firestore (chats keep opaque uids).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

#: Identifiers per get_users call (the Admin SDK's limit).
_BATCH = 100
#: Something that reads as an email address, anywhere in a name.
_ADDRESS = re.compile(r"[^\s@]+@[^\s@]+\.[^\s@]+")


@dataclass(frozen=True)
class Account:
    uid: str
    email: str
    display_name: str

    def public(self) -> dict[str, str]:
        return {"uid": self.uid, "email": self.email, "display_name": self.display_name}

    @property
    def shown_name(self) -> str:
        """What other people (a chat's viewers and visitors, the model reading a
        background) may be shown of this account: its display name, never an
        address; a display name that is one (some sign-in providers set it so) counts as none."""
        return "" if _ADDRESS.search(self.display_name) else self.display_name.strip()


def _lookup(identifiers: list[object], app: Any = None) -> list[Account]:
    from firebase_admin import auth

    found: list[Account] = []
    for start in range(0, len(identifiers), _BATCH):
        result = auth.get_users(identifiers[start : start + _BATCH], app=app)
        found += [Account(u.uid, (u.email or "").lower(), u.display_name or "") for u in result.users]
    return found


def by_email(emails: Iterable[str]) -> dict[str, Account]:
    """The accounts of these (lower-case) addresses; an unknown one is absent."""
    from firebase_admin import auth

    return {a.email: a for a in _lookup([auth.EmailIdentifier(e) for e in dict.fromkeys(emails)])}


def is_active(uid: str) -> bool:
    """`uid` has an account, and it is not disabled."""
    from firebase_admin import auth

    try:
        user = auth.get_user(uid)
    except auth.UserNotFoundError:
        return False
    return not user.disabled


def by_uid(uids: Iterable[str], app: Any = None) -> dict[str, Account]:
    """The accounts of these uids (in `app`'s project; default: the default app's); a deleted one is absent."""
    from firebase_admin import auth

    return {a.uid: a for a in _lookup([auth.UidIdentifier(u) for u in dict.fromkeys(uids)], app)}


def delete_auth_user(uid: str, app: Any = None) -> None:
    """The Auth account of `uid` (in `app`'s project; default: the default app's); one
    already gone (a deletion run again) is no error."""
    from firebase_admin import auth

    with contextlib.suppress(auth.UserNotFoundError):
        auth.delete_user(uid, app=app)


def revoke_sessions(uid: str, app: Any = None) -> None:
    """No new ID token for `uid` from its refresh tokens (those issued already live out their hour);
    an account already gone is no error."""
    from firebase_admin import auth

    with contextlib.suppress(auth.UserNotFoundError):
        auth.revoke_refresh_tokens(uid, app=app)
