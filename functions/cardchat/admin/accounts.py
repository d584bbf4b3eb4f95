"""An admin deletes a user (`python -m cardchat delete-account --uid …`): the
same deletion as the deleteAccount callable (access/account_deletion.py), run with the
admin's credentials; run again, it finishes one that was interrupted."""

from __future__ import annotations

import os
from typing import Any

from cardchat.access import account_deletion


def _auth_app(project: str) -> Any:
    """A firebase_admin app of `project` for the Auth deletion, named for it (the default
    app may serve another project): application-default credentials, or none for the
    Auth emulator (FIREBASE_AUTH_EMULATOR_HOST)."""
    import firebase_admin
    from firebase_admin import credentials

    name = f"cardchat-admin-{project}"
    if name in firebase_admin._apps:
        return firebase_admin.get_app(name)
    if not os.environ.get("FIREBASE_AUTH_EMULATOR_HOST"):
        return firebase_admin.initialize_app(options={"projectId": project}, name=name)
    from google.auth.credentials import AnonymousCredentials

    class Anonymous(credentials.Base):  # type: ignore[misc]  # firebase_admin ships no type hints
        def get_credential(self) -> AnonymousCredentials:
            return AnonymousCredentials()  # type: ignore[no-untyped-call]

    return firebase_admin.initialize_app(Anonymous(), {"projectId": project}, name=name)


def delete_account(db: Any, project: str, uid: str) -> None:
    account_deletion.erase(db, uid, _auth_app(project))
