"""The caller's account: models they may use, their own API keys, access tokens, viewers they name, deletion."""

from __future__ import annotations

from typing import Any

from firebase_functions import https_fn, options, scheduler_fn

from cardchat.parsing import requests, token_requests
from endpoints.base import WAITS_ON_FIRESTORE, ai_access, caller, db, endpoint, secrets_for


@https_fn.on_call(memory=options.MemoryOption.MB_256, secrets=secrets_for("listModels"), **WAITS_ON_FIRESTORE)
@endpoint
def listModels(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import model_list

    uid = req.auth.uid if req.auth is not None and req.auth.uid else None
    return model_list.listing(db(), uid, ai_access(uid).own_keys if uid else frozenset())


@https_fn.on_call(memory=options.MemoryOption.MB_256, secrets=secrets_for("setApiKey"))
@endpoint
def setApiKey(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import own_keys

    uid = caller(req)
    provider, key, base_url = requests.api_key(req.data)
    return own_keys.set_key(db(), uid, provider, key, base_url=base_url)


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@endpoint
def deleteApiKey(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import own_keys

    uid = caller(req)
    own_keys.delete_key(db(), uid, requests.key_provider(req.data))
    return {"keys": own_keys.list_keys(db(), uid)}


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@endpoint
def listApiKeys(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import own_keys

    return {"keys": own_keys.list_keys(db(), caller(req))}


@https_fn.on_call(memory=options.MemoryOption.MB_512, timeout_sec=540)
@endpoint
def deleteAccount(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """The caller's data, then their Auth account, on a recent sign-in; run again, it finishes an
    interrupted one."""
    from cardchat.access import account_deletion
    from cardchat.chat.recheck import withdraw_cards_of

    uid = caller(req)
    signed_in = req.auth.token.get("auth_time") if req.auth is not None else None
    account_deletion.delete_account(db(), uid, requests.account_uid(req.data), signed_in, withdraw_cards_of)
    return {}


@scheduler_fn.on_schedule(schedule="every 10 minutes", memory=options.MemoryOption.MB_512, timeout_sec=540)
def finishAccountDeletions(event: scheduler_fn.ScheduledEvent) -> None:
    """The later pass of each account deletion that is due (access/account_deletion.py)."""
    from cardchat.admin.accounts import finish_deletions

    finish_deletions(db())


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@endpoint
def createAccessToken(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import access_tokens

    uid = caller(req)
    label = token_requests.access_token_label(req.data)
    scope = token_requests.access_token_scope(req.data)
    made = access_tokens.create(db(), uid, label, scope=scope)
    return {"token": made.token, "id": made.token_id, "scope": scope}


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@endpoint
def revokeAccessToken(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import access_tokens

    uid = caller(req)
    token, token_id = token_requests.revoke_access_token(req.data)
    access_tokens.revoke(db(), uid, token=token, token_id=token_id)
    return {}


@https_fn.on_call(memory=options.MemoryOption.MB_256)
@endpoint
def resolveViewers(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    from cardchat.access import card_viewers
    from cardchat.parsing import addresses

    return card_viewers.resolve_viewers(db(), caller(req), addresses.resolve_viewers(req.data))
