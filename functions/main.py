"""Cloud Functions entry points, each thin: parse, authorise, call the domain (cardchat.*),
map its errors to HttpsError. Heavy modules (ONNX, tokenizers, provider SDKs) are imported
inside the functions that need them: a cold start never pays for the embedding model."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from firebase_functions import firestore_fn, https_fn, options, scheduler_fn
from flask import Request  # what https_fn.on_request hands over; Flask is already loaded by firebase_functions

from cardchat.errors import CardchatError, Unauthenticated
from cardchat.llm import models, secret_keys
from cardchat.parsing import requests
from cardchat.schema.documents import CARDS, FUNCTION_NAMES, GENERATE_TIMEOUT_S, REGION
from cardchat.schema.embedding_queue import EMBED_TIMEOUT_S, EMBEDDING_HANDOVERS
from cardchat.schema.messages import ANSWER_REQUESTS

if TYPE_CHECKING:
    from firebase_functions.core import Change
    from google.cloud.firestore_v1 import DocumentSnapshot

    from cardchat.schema.documents import Card

    #: What a document trigger receives: the document before and after the write.
    DocumentWritten = firestore_fn.Event[Change[DocumentSnapshot[Any] | None]]

log = logging.getLogger("cardchat")

options.set_global_options(region=REGION, max_instances=20)

# The API keys this deployment holds as Firebase secrets (llm/secret_keys.py: CARDCHAT_SECRETS in functions/.env,
# plus a remote embedder's); locally the keys come from functions/.secret.local or the environment.
SECRETS = secret_keys.bound_secrets()
#: Every function that can reach a model provider or a remote embedder, or answers by whether a key is present, binds
#: SECRETS, and no other does (tests/test_secrets.py); mcp embeds search_cards queries: a remote embedder's key.
USES_KEYS = frozenset(
    {"listModels", "createChat", "branchChat", "embedCard", "generateAnswer", "continueChat", "setApiKey", "mcp"}
    | {"searchCards", "resumeEmbedding"}  # they embed (a text; embedCard's queue): a remote embedder's key
)


def _secrets(name: str) -> list[str] | None:
    return (SECRETS or None) if name in USES_KEYS else None


def _init_app() -> None:
    """The default firebase_admin app, which verifies callables' ID tokens (the emulators' need no credentials)."""
    import firebase_admin
    from firebase_admin import credentials

    if firebase_admin._apps:
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


def db() -> Any:
    """The Firestore client (google.cloud.firestore.Client), made on first use."""
    global _db
    if _db is None:
        from firebase_admin import firestore

        _db = firestore.client()
    return _db


def _uid(req: https_fn.CallableRequest[Any]) -> str:
    if req.auth is None or not req.auth.uid:
        raise Unauthenticated("Sign in first")
    return req.auth.uid


def _ai(uid: str) -> Any:
    """The caller's permissions.AIAccess: AI use granted, and the providers they hold their own key for.
    Every call that makes a model answer passes its admit(model) (PermissionDenied, else the
    rate limits that apply); the slot and token reservation are taken by the domain, in the
    transaction that checks and writes, so a refused call spends nothing."""
    from cardchat.access import permissions

    return permissions.ai_access(db(), uid)


def _endpoint(fn: Callable[[https_fn.CallableRequest[Any]], Any]) -> Callable[[https_fn.CallableRequest[Any]], Any]:
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


@https_fn.on_call(memory=options.MemoryOption.MB_256, secrets=_secrets("listModels"))
@_endpoint
def listModels(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    own = _ai(req.auth.uid).own_keys if req.auth is not None and req.auth.uid else frozenset()
    return {
        "models": [dict(m.public(), own_key=m.provider in own) for m in models.available_models(own_keys=own)],
        "default": models.default_model_id(own_keys=own),
    }


@https_fn.on_call(memory=options.MemoryOption.GB_1, timeout_sec=120, secrets=_secrets("createChat"))
@_endpoint
def createChat(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.chat import create

    uid = _uid(req)
    ai = _ai(uid)
    parsed = requests.create_chat(req.data, own_keys=ai.own_keys)
    result = create.create_chat(db(), uid, parsed, limits=ai.admit(parsed.model))
    log.info("createChat %s timings_ms=%s", result.chat_id, result.timings.as_dict())
    return result.answer()


@https_fn.on_call(memory=options.MemoryOption.MB_512)
@_endpoint
def postMessage(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import permissions
    from cardchat.chat import turns

    uid = _uid(req)
    chat_id, content = requests.post_message(req.data)
    limits = _ai(uid).admit(permissions.model_of_chat(db(), chat_id))
    return {"message_id": turns.post_message(db(), uid, chat_id, content, limits=limits)}


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@_endpoint
def retryMessage(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import permissions
    from cardchat.chat import turns

    uid = _uid(req)
    message_id = requests.doc_id(req.data, "message_id")
    limits = _ai(uid).admit(permissions.model_of_message(db(), message_id))
    return {"message_id": turns.retry_message(db(), uid, message_id, limits=limits)}


@https_fn.on_call(memory=options.MemoryOption.MB_512, timeout_sec=120, secrets=_secrets("branchChat"))
@_endpoint
def branchChat(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import permissions
    from cardchat.chat import branch

    uid = _uid(req)
    chat_id, index, content = requests.branch_chat(req.data)
    limits = _ai(uid).admit(permissions.model_of_chat(db(), chat_id))
    return {"chat_id": branch.branch_chat(db(), uid, chat_id, index, content, limits=limits)}


@https_fn.on_call(memory=options.MemoryOption.GB_1, timeout_sec=120, secrets=_secrets("continueChat"))
@_endpoint
def continueChat(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """A chat of the caller's own carrying on one they may read (chat/continuation.py)."""
    from cardchat.chat import continuation

    uid = _uid(req)
    ai = _ai(uid)
    chat_id, model, fraction = requests.continue_chat(req.data, own_keys=ai.own_keys)
    return {"chat_id": continuation.continue_chat(db(), uid, chat_id, model, fraction, ai)}


@https_fn.on_call(memory=options.MemoryOption.MB_256, secrets=_secrets("setApiKey"))
@_endpoint
def setApiKey(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import own_keys

    uid = _uid(req)
    provider, key = requests.api_key(req.data)
    return own_keys.set_key(db(), uid, provider, key)


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@_endpoint
def deleteApiKey(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import own_keys

    uid = _uid(req)
    own_keys.delete_key(db(), uid, requests.key_provider(req.data))
    return {"keys": own_keys.list_keys(db(), uid)}


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@_endpoint
def listApiKeys(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import own_keys

    return {"keys": own_keys.list_keys(db(), _uid(req))}


@https_fn.on_call(memory=options.MemoryOption.MB_256, timeout_sec=120)
@_endpoint
def deleteChat(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.chat import create

    uid = _uid(req)
    create.delete_chat(db(), uid, requests.doc_id(req.data, "chat_id"))
    return {}


@https_fn.on_call(memory=options.MemoryOption.MB_512, timeout_sec=540)
@_endpoint
def deleteAccount(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """The caller's data, then their Auth account; run again, it finishes an interrupted one."""
    from cardchat.access import account_deletion

    account_deletion.delete_account(db(), _uid(req), requests.account_uid(req.data))
    return {}


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@_endpoint
def createAccessToken(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import access_tokens

    uid = _uid(req)
    made = access_tokens.create(db(), uid, requests.access_token_label(req.data))
    return {"token": made.token, "id": made.token_id}


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@_endpoint
def revokeAccessToken(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import access_tokens

    uid = _uid(req)
    token, token_id = requests.revoke_access_token(req.data)
    access_tokens.revoke(db(), uid, token=token, token_id=token_id)
    return {}


@https_fn.on_call(memory=options.MemoryOption.GB_1, timeout_sec=60, secrets=_secrets("searchCards"))
@_endpoint
def searchCards(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """The Cards page's text filter, ranked over the chosen collection (1 GiB: as createChat, it embeds and ranks)."""
    from cardchat.chat import card_search

    return card_search.search_cards(db(), _uid(req), requests.search_cards(req.data)).to_dict()


@https_fn.on_call(memory=options.MemoryOption.MB_512)
@_endpoint
def searchChats(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """The Chats page's search of the caller's chats and those shared with them (chat/chat_search.py)."""
    from cardchat.chat import chat_search

    return chat_search.search_chats(db(), _uid(req), requests.search_chats(req.data)).to_dict()


@https_fn.on_request(memory=options.MemoryOption.GB_1, timeout_sec=60, secrets=_secrets("mcp"))
def mcp(req: Request) -> Any:
    """MCP over Streamable HTTP (cardchat/mcpserver/), a personal access token the bearer; refusals: 401, 429, 405."""
    from cardchat.access import access_tokens
    from cardchat.mcpserver import server

    if req.method != "POST":
        return server.refusal(405, "Only POST: this server is stateless and streams nothing", {"Allow": "POST"})
    try:
        uid = access_tokens.authenticate(db(), req.headers.get("Authorization"))
    except CardchatError as e:
        return server.refused(e)
    return server.serve(req.environ, db(), uid)


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@_endpoint
def shareChat(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.chat import share
    from cardchat.parsing import addresses

    return share.share_chat(db(), _uid(req), addresses.share_chat(req.data))


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@_endpoint
def resolveViewers(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import card_viewers
    from cardchat.parsing import addresses

    return card_viewers.resolve_viewers(db(), _uid(req), addresses.resolve_viewers(req.data))


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@_endpoint
def rateAnswer(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.chat import feedback

    feedback.rate_answer(db(), _uid(req), requests.rate_answer(req.data))
    return {}


@firestore_fn.on_document_written(
    document=f"{CARDS}/{{cardId}}",
    memory=options.MemoryOption.GB_1,
    timeout_sec=EMBED_TIMEOUT_S,
    secrets=_secrets("embedCard"),
)
def embedCard(event: DocumentWritten) -> None:
    """Keeps card_embeddings in step with cards, in batches: the card is queued, and the call
    that finds no worker for its owner drains the owner's queue (repo/embed_batches.py)."""
    from cardchat.embeddings import get_embedder
    from cardchat.repo import embed_batches

    before, after = (_card_of(snap) for snap in (event.data.before, event.data.after))
    outcome = embed_batches.on_card_written(db(), event.params["cardId"], before, after, get_embedder())
    log.info("embedCard %s: %s", event.params["cardId"], outcome)


@firestore_fn.on_document_written(
    document=f"{EMBEDDING_HANDOVERS}/{{owner}}",
    memory=options.MemoryOption.GB_1,
    timeout_sec=EMBED_TIMEOUT_S,
    secrets=_secrets("resumeEmbedding"),
)
def resumeEmbedding(event: DocumentWritten) -> None:
    """A worker out of time with cards still queued: a fresh one takes the rest (repo/embed_batches.py)."""
    from cardchat.embeddings import get_embedder
    from cardchat.repo import embed_batches

    if event.data.after is not None and event.data.after.exists:  # written, not deleted
        log.info("resumeEmbedding: %s", embed_batches.work(db(), event.params["owner"], get_embedder()))


def _card_of(snap: DocumentSnapshot[Any] | None) -> Card | None:
    from cardchat.schema.documents import Card

    data = snap.to_dict() if snap is not None and snap.exists else None  # None: no card (created or deleted)
    return Card.from_dict(data) if data is not None else None


@firestore_fn.on_document_created(
    document=f"{ANSWER_REQUESTS}/{{requestId}}",
    memory=options.MemoryOption.GB_1,
    timeout_sec=GENERATE_TIMEOUT_S,
    secrets=_secrets("generateAnswer"),
)
def generateAnswer(event: firestore_fn.Event[DocumentSnapshot[Any] | None]) -> None:
    """Streams the answer an answer request names: one event per run asked for, none for the run's
    own writes to the message; the claim makes a duplicate delivery harmless (generation/answer_runs.py)."""
    from cardchat.generation import answer_runs

    data = event.data.to_dict() if event.data is not None and event.data.exists else None
    if (done := answer_runs.run_request(db(), event.params["requestId"], data)) is not None:
        _answered(done["chat"], int(done.get("message_index") or 0), done.get("model"))


def _answered(chat_id: str, index: int, model_id: str | None) -> None:
    """A complete answer: the chat's title after its first; the turn into its readers' search indexes."""
    from cardchat.chat import titles
    from cardchat.repo import chat_search

    if index == 1:
        titles.retitle(db(), chat_id, model_id)
    chat_search.index_answer(db(), chat_id, index)


#: generation/sweeper.SWEEP_INTERVAL_S (tests/generation/test_sweeper.py holds them equal).
@scheduler_fn.on_schedule(schedule="every 1 minutes", memory=options.MemoryOption.MB_256, timeout_sec=300)
def sweepAnswers(event: scheduler_fn.ScheduledEvent) -> None:
    """Re-drives or fails the answers whose run died, whether or not anyone watches (generation/sweeper.py)."""
    from cardchat.generation import sweeper

    log.info("sweepAnswers: %s", sweeper.sweep(db()))


# Names the SPA calls (common/collections.json): a rename not made here fails at import, not at a call.
assert set(FUNCTION_NAMES.values()) <= set(globals()), "common/collections.json names a function main.py lacks"
