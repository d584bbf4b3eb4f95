"""Cards near what the caller reads: a card page's Related cards, the follow-ups suggested after an
answer (its owner's only: they name cards behind the chat), and the pairs of a collection that overlap."""

from __future__ import annotations

from typing import Any

from firebase_functions import https_fn, options

from cardchat.parsing import requests
from endpoints.base import caller, db, endpoint, secrets_for


@https_fn.on_call(memory=options.MemoryOption.GB_1, timeout_sec=60, secrets=secrets_for("relatedCards"))
@endpoint
def relatedCards(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """The cards nearest to one the caller reads, within the collection they chose (1 GiB: it ranks, as a search)."""
    from cardchat.chat import related_cards
    from cardchat.parsing.related_requests import related_cards as parse

    return related_cards.related_cards(db(), caller(req), parse(req.data)).to_dict()


@https_fn.on_call(memory=options.MemoryOption.GB_1, timeout_sec=60, secrets=secrets_for("suggestFollowups"))
@endpoint
def suggestFollowups(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """Up to three questions after a complete answer, for the chat's owner only (chat/followups.py)."""
    from cardchat.chat import followups

    uid = caller(req)
    message_id = requests.doc_id(req.data, "message_id")
    return {"questions": followups.suggest_followups(db(), uid, message_id)}


@https_fn.on_call(memory=options.MemoryOption.GB_1, timeout_sec=60, secrets=secrets_for("findOverlaps"))
@endpoint
def findOverlaps(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """Near-duplicate and possibly conflicting pairs within the collection the caller chose (1 GiB: it
    holds the collection's vectors, as a search does)."""
    from cardchat.chat import overlaps
    from cardchat.parsing.overlap_requests import find_overlaps as parse

    return overlaps.find_overlaps(db(), caller(req), parse(req.data)).to_dict()
