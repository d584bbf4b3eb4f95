"""A user leaves: every document of theirs goes, then their Auth account.

deleteAccount runs it for the caller, and only ever for the caller; the admin
CLI (`python -m cardchat delete-account --uid …`) for anyone. The Firestore
part is repo/account_data.py's steps, each idempotent, in an order that keeps
every state between them valid: an interrupted deletion (a timeout, a crash)
is finished by running it again. The Auth account goes last, so a user whose
deletion stopped midway can still sign in and ask again.
"""

from __future__ import annotations

from typing import Any

from cardchat.errors import PermissionDenied


def delete_account(db: Any, caller: str, uid: str | None = None) -> None:
    """Deletes `caller`'s data and account. `uid` (what the request named, if anything)
    must be the caller's own: nobody deletes another user's data through the callable."""
    if uid is not None and uid != caller:
        raise PermissionDenied("You can delete only your own account")
    erase(db, caller)


def erase(db: Any, uid: str, auth_app: Any = None) -> None:
    """Everything of `uid`, then the Auth user (an admin's run: no caller to check;
    `auth_app`: the firebase_admin app of the project, default the default app)."""
    from cardchat.repo import account_data, accounts

    for step in account_data.STEPS:
        step(db, uid)
    accounts.delete_auth_user(uid, auth_app)
