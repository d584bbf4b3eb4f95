"""The owner's pins and exclusions of a chat's cards (chat/pins.py)."""

from __future__ import annotations

from typing import Any

from firebase_functions import https_fn, options

from cardchat.parsing import pin_requests
from endpoints.base import WAITS_ON_FIRESTORE, caller, db, endpoint


@https_fn.on_call(memory=options.MemoryOption.MB_256, **WAITS_ON_FIRESTORE)
@endpoint
def pinCard(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """{chat_id, card_id, pinned?}: the card always in the chat's background (pinned: false unpins it)."""
    from cardchat.chat import pins

    uid = caller(req)
    chat_id, card_id, pinned = pin_requests.card_choice(req.data, "pinned")
    return pins.choose(db(), uid, chat_id, card_id, "pin" if pinned else "unpin").to_dict()


@https_fn.on_call(memory=options.MemoryOption.MB_256, **WAITS_ON_FIRESTORE)
@endpoint
def excludeCard(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """{chat_id, card_id, excluded?}: the card never again in the chat's background (excluded: false undoes it)."""
    from cardchat.chat import pins

    uid = caller(req)
    chat_id, card_id, excluded = pin_requests.card_choice(req.data, "excluded")
    return pins.choose(db(), uid, chat_id, card_id, "exclude" if excluded else "include").to_dict()
