"""What every endpoint shares: the Firebase app, the Firestore client, the caller's identity and
AI access, the API keys bound as secrets, and the mapping of domain errors to HttpsError."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import Any, TypedDict

from firebase_functions import https_fn, options

from cardchat.errors import CardchatError, Unauthenticated
from cardchat.llm import secret_keys
from cardchat.repo import answer_tasks
from cardchat.schema.documents import REGION

log = logging.getLogger("cardchat")

options.set_global_options(region=REGION, max_instances=20)


class Shared(TypedDict):
    """The options of a function whose instance serves several calls at once."""

    cpu: int
    concurrency: int


#: Calls one instance of a frequent callable serves at once: such a call mostly waits on Firestore
#: (a transaction, a few reads), so its instance's vCPU is idle most of the time. Cloud Run allows a
#: concurrency above 1 only on a whole vCPU; the calls a rare callable makes would seldom meet on one
#: instance, and stay one to an instance on a fraction of a vCPU, the cheaper there (docs/scale.md).
WAITING_CALLS = 16
WAITS_ON_FIRESTORE = Shared(cpu=1, concurrency=WAITING_CALLS)
#: The Functions Framework's gunicorn runs 4 threads per CPU it sees unless THREADS says otherwise: a
#: 1-vCPU instance would run 4 of the calls Cloud Run gives it and keep the rest waiting. Read when the
#: framework starts its server, after it has imported this module.
os.environ.setdefault("THREADS", str(max(WAITING_CALLS, answer_tasks.ANSWERS_PER_INSTANCE)))

# The API keys this deployment holds as Firebase secrets (llm/secret_keys.py: CARDCHAT_SECRETS in functions/.env,
# plus a remote embedder's); locally the keys come from functions/.secret.local or the environment.
SECRETS = secret_keys.bound_secrets()
#: Every function that can reach a model provider or a remote embedder, or answers by whether a key is present, binds
#: SECRETS, and no other does (tests/test_secrets.py); mcp embeds search_cards queries: a remote embedder's key.
USES_KEYS = frozenset(
    {"listModels", "createChat", "branchChat", "embedCard", "generateAnswer", "continueChat", "setApiKey", "mcp"}
    | {"searchCards", "checkDraft", "resumeEmbedding"}  # they embed (texts; embedCard's queue): a remote embedder's key
    | {"relatedCards", "suggestFollowups"}  # they embed a card's text when it has no stored vector
)


def secrets_for(name: str) -> list[str] | None:
    return (SECRETS or None) if name in USES_KEYS else None


def _init_app() -> None:
    """The default firebase_admin app, which verifies callables' ID tokens (the emulators' need no credentials)."""
    import firebase_admin
    from firebase_admin import credentials

    if firebase_admin._DEFAULT_APP_NAME in firebase_admin._apps:
        return
    if os.environ.get("FUNCTIONS_EMULATOR") == "true":
        from google.auth.credentials import AnonymousCredentials

        class Anonymous(credentials.Base):  # type: ignore[misc]  # firebase_admin ships no type hints
            def get_credential(self) -> AnonymousCredentials:
                return AnonymousCredentials()  # type: ignore[no-untyped-call]

        firebase_admin.initialize_app(Anonymous(), {"projectId": os.environ.get("GCLOUD_PROJECT")})
    else:
        firebase_admin.initialize_app()


_init_app()
_db = None
_db_lock = threading.Lock()  # an instance serving several calls makes one client, not one per first caller


def db() -> Any:
    """The Firestore client (google.cloud.firestore.Client), made on first use."""
    global _db
    with _db_lock:
        if _db is None:
            from firebase_admin import firestore

            _db = firestore.client()
    return _db


def caller(req: https_fn.CallableRequest[Any]) -> str:
    if req.auth is None or not req.auth.uid:
        raise Unauthenticated("Sign in first")
    return req.auth.uid


def ai_access(uid: str) -> Any:
    """The caller's permissions.AIAccess: AI use granted, and the providers they hold their own key for.
    Every call that makes a model answer passes its admit(model) (PermissionDenied, else the
    rate limits that apply); the slot and token reservation are taken by the domain, in the
    transaction that checks and writes, so a refused call spends nothing."""
    from cardchat.access import permissions

    return permissions.ai_access(db(), uid)


def endpoint(fn: Callable[[https_fn.CallableRequest[Any]], Any]) -> Callable[[https_fn.CallableRequest[Any]], Any]:
    """Maps domain errors to HttpsError; anything unexpected is logged
    server-side and answered with a generic message (no internals leak)."""

    def wrapper(req: https_fn.CallableRequest[Any]) -> Any:
        try:
            return fn(req)
        except CardchatError as e:
            details = {"retry_after": round(e.retry_after, 1)} if hasattr(e, "retry_after") else None
            raise https_fn.HttpsError(
                https_fn.FunctionsErrorCode[e.code.upper().replace("-", "_")], e.message, details
            ) from e
        except https_fn.HttpsError:
            raise
        except Exception:
            log.exception("%s failed", fn.__name__)
            message = "Something went wrong on our side; please try again"
            raise https_fn.HttpsError(https_fn.FunctionsErrorCode.INTERNAL, message) from None  # logged above

    wrapper.__name__ = fn.__name__
    return wrapper
