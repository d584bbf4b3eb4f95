"""Cloud Functions entry points. Each endpoint is thin: parse, authorise, call
the domain (cardchat.*), map its errors to HttpsError codes.

Heavy modules (ONNX, tokenizers, provider SDKs) are imported inside the
functions that need them, so a cold start of listModels or postMessage never
pays for the embedding model.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

from firebase_functions import firestore_fn, https_fn, options

from cardchat import keys, llms
from cardchat.errors import CardchatError, Unauthenticated
from cardchat.schema import CARDS, CHAT_MESSAGES, FUNCTION_NAMES, GENERATE_TIMEOUT_S, REGION

log = logging.getLogger("cardchat")

options.set_global_options(region=REGION, max_instances=20)

# The API keys this deployment holds as Firebase secrets (keys.py: the ones
# listed in CARDCHAT_SECRETS in functions/.env, plus a remote embedder's);
# locally the keys come from functions/.secret.local or the environment.
SECRETS = keys.bound_secrets()
#: Every function that can reach a model provider or a remote embedder, or
#: answers by whether a key is present: they bind SECRETS, and no other
#: function does. A new such function goes here; tests/test_secrets.py holds
#: every declared function to this list.
USES_KEYS = frozenset({"listModels", "createChat", "branchChat", "embedCard", "generateAnswer"})


def _secrets(name: str) -> list[str] | None:
    return (SECRETS or None) if name in USES_KEYS else None


def _init_app() -> None:
    """The default firebase_admin app, at import: the callable wrapper
    verifies ID tokens with it before our code runs. In the emulators there
    are no Application Default Credentials and none are needed (the Auth
    emulator's tokens are verified without a signature check)."""
    import firebase_admin
    from firebase_admin import credentials

    if firebase_admin._apps:
        return
    if os.environ.get("FUNCTIONS_EMULATOR") == "true":
        from google.auth.credentials import AnonymousCredentials

        class Anonymous(credentials.Base):
            def get_credential(self):
                return AnonymousCredentials()

        firebase_admin.initialize_app(Anonymous(), {"projectId": os.environ.get("GCLOUD_PROJECT")})
    else:
        firebase_admin.initialize_app()


_init_app()
_db = None


def db():
    """The Firestore client, made on first use."""
    global _db
    if _db is None:
        from firebase_admin import firestore

        _db = firestore.client()
    return _db


def _uid(req: https_fn.CallableRequest) -> str:
    if req.auth is None or not req.auth.uid:
        raise Unauthenticated("Sign in first")
    return req.auth.uid


def _may_use_ai(uid: str) -> None:
    """Every call that makes a model answer needs AI use granted. Its
    rate-limit slot and token reservation are taken by the domain, in the
    transaction that checks and writes, so a refused call spends nothing."""
    from cardchat.chat import create as chats
    from cardchat.repo import users

    chats.check_may_use_ai(users.get_user(db(), uid))


def _endpoint(fn: Callable[[https_fn.CallableRequest], Any]) -> Callable[[https_fn.CallableRequest], Any]:
    """Maps domain errors to HttpsError; anything unexpected is logged
    server-side and answered with a generic message (no internals leak)."""

    def wrapper(req: https_fn.CallableRequest) -> Any:
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


@https_fn.on_call(memory=options.MemoryOption.MB_256, secrets=_secrets("listModels"))
@_endpoint
def listModels(req: https_fn.CallableRequest) -> dict:
    return {
        "models": [m.public() for m in llms.available_models()],
        "default": llms.default_model_id(),
    }


@https_fn.on_call(memory=options.MemoryOption.GB_1, timeout_sec=120, secrets=_secrets("createChat"))
@_endpoint
def createChat(req: https_fn.CallableRequest) -> dict:
    from cardchat import parsing
    from cardchat.chat import create as chats

    uid = _uid(req)
    parsed = parsing.create_chat(req.data)
    _may_use_ai(uid)
    result = chats.create_chat(db(), uid, parsed)
    log.info("createChat %s timings_ms=%s", result.chat_id, result.timings_ms)
    return {"chat_id": result.chat_id}


@https_fn.on_call(memory=options.MemoryOption.MB_512)
@_endpoint
def postMessage(req: https_fn.CallableRequest) -> dict:
    from cardchat import parsing
    from cardchat.chat import turns as conversation

    uid = _uid(req)
    chat_id, content = parsing.post_message(req.data)
    _may_use_ai(uid)
    return {"message_id": conversation.post_message(db(), uid, chat_id, content)}


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@_endpoint
def retryMessage(req: https_fn.CallableRequest) -> dict:
    from cardchat import parsing
    from cardchat.chat import turns as conversation

    uid = _uid(req)
    message_id = parsing.doc_id(req.data, "message_id")
    _may_use_ai(uid)
    return {"message_id": conversation.retry_message(db(), uid, message_id)}


@https_fn.on_call(memory=options.MemoryOption.MB_512, timeout_sec=120, secrets=_secrets("branchChat"))
@_endpoint
def branchChat(req: https_fn.CallableRequest) -> dict:
    from cardchat import parsing
    from cardchat.chat import branch as branches

    uid = _uid(req)
    chat_id, index, content = parsing.branch_chat(req.data)
    _may_use_ai(uid)
    return {"chat_id": branches.branch_chat(db(), uid, chat_id, index, content)}


@https_fn.on_call(memory=options.MemoryOption.MB_256, timeout_sec=120)
@_endpoint
def deleteChat(req: https_fn.CallableRequest) -> dict:
    from cardchat import parsing
    from cardchat.chat import create as chats

    uid = _uid(req)
    chats.delete_chat(db(), uid, parsing.doc_id(req.data, "chat_id"))
    return {}


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@_endpoint
def rateAnswer(req: https_fn.CallableRequest) -> dict:
    from cardchat import parsing
    from cardchat.chat import feedback

    uid = _uid(req)
    feedback.rate_answer(db(), uid, parsing.rate_answer(req.data))
    return {}


@firestore_fn.on_document_written(
    document=f"{CARDS}/{{cardId}}", memory=options.MemoryOption.GB_1, secrets=_secrets("embedCard")
)
def embedCard(event: firestore_fn.Event) -> None:
    """Keeps card_embeddings in step with cards (recomputed only when the
    embeddable text changed)."""
    from cardchat.embeddings import get_embedder
    from cardchat.repo import embeddings as emb_repo
    from cardchat.schema import Card

    after = event.data.after
    card = Card.from_dict(after.to_dict()) if after is not None and after.exists else None
    outcome = emb_repo.refresh_card_embedding(db(), event.params["cardId"], card, get_embedder())
    log.info("embedCard %s: %s", event.params["cardId"], outcome)


@firestore_fn.on_document_written(
    document=f"{CHAT_MESSAGES}/{{messageId}}",
    memory=options.MemoryOption.GB_1,
    timeout_sec=GENERATE_TIMEOUT_S,
    secrets=_secrets("generateAnswer"),
)
def generateAnswer(event: firestore_fn.Event) -> None:
    """Turns a `ready` assistant stub into a streamed answer. Every write the
    engine makes re-triggers this; should_generate() ends those at once, and
    the claim transaction makes a duplicate delivery harmless."""
    from cardchat.generation import engine

    after = event.data.after
    data = after.to_dict() if after is not None and after.exists else None
    if not engine.should_generate(data):
        return
    status = engine.generate(db(), event.params["messageId"])
    if status == "complete" and data.get("message_index") == 1:
        _retitle(data["chat"], data.get("model"))


def _retitle(chat_id: str, model_id: str | None) -> None:
    from cardchat.chat import titles

    titles.retitle(db(), chat_id, model_id)


# Names the SPA calls, from common/collections.json: a rename there that isn't
# made here fails at import rather than at the first call.
assert set(FUNCTION_NAMES.values()) <= set(globals()), "common/collections.json names a function main.py lacks"
