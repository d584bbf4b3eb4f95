"""Cards near what the caller reads: a card page's Related cards."""

from __future__ import annotations

from typing import Any

from firebase_functions import https_fn, options

from endpoints.base import caller, db, endpoint, secrets_for


@https_fn.on_call(memory=options.MemoryOption.GB_1, timeout_sec=60, secrets=secrets_for("relatedCards"))
@endpoint
def relatedCards(req: https_fn.CallableRequest[Any]) -> dict[str, Any]:
    """The cards nearest to one the caller reads, within the collection they chose (1 GiB: it ranks, as a search)."""
    from cardchat.chat import related_cards
    from cardchat.parsing.related_requests import related_cards as parse

    return related_cards.related_cards(db(), caller(req), parse(req.data)).to_dict()
