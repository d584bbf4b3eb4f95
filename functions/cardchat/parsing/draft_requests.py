"""checkDraft's request: a draft's text, and the collection it is checked against.

Kept apart from requests.py: a draft is neither a chat's message nor a search's words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardchat.errors import InvalidArgument
from cardchat.parsing.collection_query import CollectionQuery, from_request, request_string
from cardchat.schema.documents import SHARED

#: Characters of a draft at most (common/collections.json `draft_check`: the SPA counts against it too).
MAX_DRAFT_CHARS: int = SHARED["draft_check"]["text_max_chars"]


@dataclass(frozen=True)
class CheckDraftRequest:
    text: str
    #: whose cards it is checked against: the caller's own unless they chose another collection
    query: CollectionQuery


def check_draft(data: Any) -> CheckDraftRequest:
    """checkDraft({text, query?}); `query` as createChat's ({scope?, owner?, tag?, visibility?, text?})."""
    if not isinstance(data, dict):
        raise InvalidArgument("request: must be an object {text, query?}")
    unknown = sorted(str(k)[:40] for k in data if k not in ("text", "query"))
    if unknown:
        raise InvalidArgument(f"{unknown[0]}: unknown field (expected text, query)")
    text = request_string(data, "text", "", MAX_DRAFT_CHARS)
    if text is None:
        raise InvalidArgument("text: the draft to check is required")
    query = from_request(data["query"], "query") if data.get("query") is not None else CollectionQuery()
    return CheckDraftRequest(text, query)
