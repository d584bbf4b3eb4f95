"""A firebase_admin app of one project, for the admin services the domain's adapters call
(Auth's account deletion, Cloud Tasks' enqueue): named for its project, since the default
app may serve another one (a test run's, a CLI's)."""

from __future__ import annotations

import os
from typing import Any

#: Any of these set: the emulators answer, and they take no credentials.
_EMULATOR_HOSTS = ("FIREBASE_AUTH_EMULATOR_HOST", "CLOUD_TASKS_EMULATOR_HOST")


def admin_app(project: str) -> Any:
    """Application-default credentials in a deployment, none against the emulators."""
    import firebase_admin
    from firebase_admin import credentials

    name = f"cardchat-admin-{project}"
    if name in firebase_admin._apps:
        return firebase_admin.get_app(name)
    if not any(os.environ.get(host) for host in _EMULATOR_HOSTS):
        return firebase_admin.initialize_app(options={"projectId": project}, name=name)
    from google.auth.credentials import AnonymousCredentials

    class Anonymous(credentials.Base):  # type: ignore[misc]  # firebase_admin ships no type hints
        def get_credential(self) -> AnonymousCredentials:
            return AnonymousCredentials()  # type: ignore[no-untyped-call]

    return firebase_admin.initialize_app(Anonymous(), {"projectId": project}, name=name)
