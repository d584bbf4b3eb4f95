"""Chats: create, post, retry, branch, continue, delete, share, leave, rate, and search the caller's chats."""

from __future__ import annotations

import logging
from typing import Any

from firebase_functions import https_fn, options

from cardchat.parsing import requests
from endpoints.base import WAITS_ON_FIRESTORE, ai_access, caller, db, endpoint, secrets_for

log = logging.getLogger("cardchat")


@https_fn.on_call(memory=options.MemoryOption.GB_1, timeout_sec=120, secrets=secrets_for("createChat"))
@endpoint
def createChat(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.chat import create

    uid = caller(req)
    ai = ai_access(uid)
    parsed = requests.create_chat(req.data, own_keys=ai.own_keys)
    result = create.create_chat(db(), uid, parsed, limits=ai.admit(parsed.model))
    log.info("createChat %s timings_ms=%s", result.chat_id, result.timings.as_dict())
    return result.answer()


@https_fn.on_call(memory=options.MemoryOption.MB_512, **WAITS_ON_FIRESTORE)
@endpoint
def postMessage(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import permissions
    from cardchat.chat import turns

    uid = caller(req)
    chat_id, content = requests.post_message(req.data)
    limits = ai_access(uid).admit(permissions.model_of_chat(db(), chat_id))
    return {"message_id": turns.post_message(db(), uid, chat_id, content, limits=limits)}


@https_fn.on_call(memory=options.MemoryOption.MB_256, **WAITS_ON_FIRESTORE)
@endpoint
def retryMessage(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import permissions
    from cardchat.chat import turns

    uid = caller(req)
    message_id = requests.doc_id(req.data, "message_id")
    limits = ai_access(uid).admit(permissions.model_of_message(db(), message_id))
    return {"message_id": turns.retry_message(db(), uid, message_id, limits=limits)}


@https_fn.on_call(memory=options.MemoryOption.MB_512, timeout_sec=120, secrets=secrets_for("branchChat"))
@endpoint
def branchChat(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import permissions
    from cardchat.chat import branch

    uid = caller(req)
    chat_id, index, content = requests.branch_chat(req.data)
    limits = ai_access(uid).admit(permissions.model_of_chat(db(), chat_id))
    return {"chat_id": branch.branch_chat(db(), uid, chat_id, index, content, limits=limits)}


@https_fn.on_call(memory=options.MemoryOption.GB_1, timeout_sec=120, secrets=secrets_for("continueChat"))
@endpoint
def continueChat(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """A chat of the caller's own carrying on one they may read (chat/continuation.py)."""
    from cardchat.chat import continuation

    uid = caller(req)
    ai = ai_access(uid)
    asked = requests.continue_chat(req.data, own_keys=ai.own_keys)
    new_id = continuation.continue_chat(
        db(), uid, asked.chat_id, asked.model, asked.background_fraction, ai, query=asked.query
    )
    return {"chat_id": new_id}


@https_fn.on_call(memory=options.MemoryOption.MB_256, timeout_sec=120)
@endpoint
def deleteChat(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.chat import create

    uid = caller(req)
    create.delete_chat(db(), uid, requests.doc_id(req.data, "chat_id"))
    return {}


@https_fn.on_call(memory=options.MemoryOption.MB_512)
@endpoint
def searchChats(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """The Chats page's search of the caller's chats and those shared with them (chat/chat_search.py)."""
    from cardchat.chat import chat_search

    return chat_search.search_chats(db(), caller(req), requests.search_chats(req.data)).to_dict()


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@endpoint
def shareChat(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.chat import share
    from cardchat.parsing import addresses

    return share.share_chat(db(), caller(req), addresses.share_chat(req.data))


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@endpoint
def leaveChat(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """A person a chat is shared with stops reading it (their chat_viewers doc goes)."""
    from cardchat.chat import share

    share.leave_chat(db(), caller(req), requests.doc_id(req.data, "chat_id"))
    return {}


@https_fn.on_call(memory=options.MemoryOption.MB_256, **WAITS_ON_FIRESTORE)
@endpoint
def rateAnswer(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.chat import feedback

    feedback.rate_answer(db(), caller(req), requests.rate_answer(req.data))
    return {}
