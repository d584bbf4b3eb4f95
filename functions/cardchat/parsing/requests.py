"""Request parsing for every callable: the one place a client's input is
checked. Each endpoint parses first, so a malformed field is an
INVALID_ARGUMENT naming it before anything is read, spent or written; the
domain (chats, conversation, branches) trusts what these return.

"Well-formed" includes "Firestore can store it": ids Firestore reserves
(`__.*__`), strings that are not valid UTF-8 (a lone surrogate from JSON's
`\\ud800`), arrays directly inside arrays and maps nested deeper than a
document allows are refused here rather than failing the write as an
internal error. Sizes are bounded so the chat document (which carries the
request's collection and the included card ids) stays far below 1 MiB.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from cardchat.errors import InvalidArgument
from cardchat.llm import compatible, models
from cardchat.parsing.collection_query import MAX_QUERY_TEXT_CHARS, CollectionQuery, from_request, request_string
from cardchat.schema.accounts import Rating
from cardchat.schema.chat_search import MAX_CHAT_SEARCH_CHARS
from cardchat.schema.documents import MAX_PINS, Collection

MAX_CONTENT_CHARS = 32_000
MAX_CARD_IDS = 20_000
#: Stored size of the requested ids (UTF-8 bytes + 1 each, as Firestore
#: counts them): the included ones are a subset, and with the collection's
#: bounds below the chat document stays under 1 MiB.
MAX_CARD_ID_BYTES = 900_000
MAX_DESCRIPTION_CHARS = 2_000
MAX_CONFIGURATION_BYTES = 20_000
#: Levels of maps and arrays inside a collection's `configuration`. Firestore
#: allows 20 in a whole document; the SPA sends one, and the margin keeps
#: the configuration storable wherever the chat keeps it.
MAX_CONFIGURATION_DEPTH = 8
DEFAULT_BACKGROUND_FRACTION = 0.5
#: createChat's `look_further` when it is not given: off (docs/look-further.md says why).
LOOK_FURTHER_DEFAULT = False
#: Firestore's limit on a document id and a field name, in UTF-8 bytes.
MAX_ID_BYTES = 1_500
_INT64 = 2**63
_RESERVED = re.compile(r"^__.*__$", re.DOTALL)


@dataclass
class CreateChatRequest:
    card_ids: list[str]  # empty when `query` describes the collection
    initial_message: str
    model: str
    background_fraction: float
    collection: Collection
    query: CollectionQuery | None = None  # the collection as a query, resolved on the server
    collection_id: str | None = None  # a saved collection's id: chat/saved_collections.py fills card_ids or query
    pinned_card_ids: list[str] = field(default_factory=list)  # always in the background (chat/pins.py)
    look_further: bool = LOOK_FURTHER_DEFAULT  # the model may search the chat's cards (docs/look-further.md)

    @property
    def source(self) -> list[str] | CollectionQuery:
        """What the chat is made from: the ids, or the query."""
        return self.query if self.query is not None else self.card_ids


def _utf8_bytes(value: str) -> int | None:
    """Its UTF-8 length; None when it has no UTF-8 form (a lone surrogate)."""
    try:
        return len(value.encode("utf-8"))
    except UnicodeEncodeError:
        return None


def _valid_id(value: Any) -> TypeGuard[str]:
    if not isinstance(value, str):
        return False
    size = _utf8_bytes(value)
    return (
        size is not None
        and 0 < size <= MAX_ID_BYTES
        and "/" not in value
        and value not in (".", "..")
        and not _RESERVED.match(value)
    )


def doc_id(data: Any, name: str) -> str:
    """A document id from a request (`chat_id`, `message_id`)."""
    value = data.get(name) if isinstance(data, dict) else None
    if not _valid_id(value):
        raise InvalidArgument(f"{name}: a valid id is required")
    return value


def account_uid(data: Any) -> str | None:
    """deleteAccount's optional `uid`: whose account the caller means (theirs, or the call is refused)."""
    value = data.get("uid") if isinstance(data, dict) else None
    if value is not None and not _valid_id(value):
        raise InvalidArgument("uid: a valid id is required")
    return value


def content(value: Any, name: str = "content") -> str:
    """A user's message, trimmed: the first (createChat's `initial_message`)
    and every follow-up obey the same rules. `name` names the field in errors."""
    if not isinstance(value, str):
        raise InvalidArgument(f"{name}: must be a string")
    if _utf8_bytes(value) is None:
        raise InvalidArgument(f"{name}: is not valid text (it holds a lone UTF-16 surrogate)")
    text = value.strip()
    if not text:
        raise InvalidArgument(f"{name}: must not be empty")
    if len(text) > MAX_CONTENT_CHARS:
        raise InvalidArgument(f"{name}: {len(text):,} characters is over the limit of {MAX_CONTENT_CHARS:,}")
    return text


def _stored_size(value: Any, name: str, depth: int, in_array: bool = False) -> int:
    """Firestore's stored size of a JSON value; raises naming `name` for
    what Firestore cannot store."""
    if value is None or isinstance(value, bool):
        return 1
    if isinstance(value, int):
        if not -_INT64 <= value < _INT64:
            raise InvalidArgument(f"{name}: a number is outside the 64-bit range")
        return 8
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidArgument(f"{name}: numbers must be finite")
        return 8
    if isinstance(value, str):
        size = _utf8_bytes(value)
        if size is None:
            raise InvalidArgument(f"{name}: a string is not valid text (it holds a lone UTF-16 surrogate)")
        return size + 1
    if depth >= MAX_CONFIGURATION_DEPTH and isinstance(value, (list, dict)):
        raise InvalidArgument(f"{name}: nested more than {MAX_CONFIGURATION_DEPTH} levels deep")
    if isinstance(value, list):
        if in_array:
            raise InvalidArgument(f"{name}: an array may not directly hold another array")
        return sum(_stored_size(v, name, depth + 1, in_array=True) for v in value)
    if isinstance(value, dict):
        total = 0
        for key, v in value.items():
            if not _valid_field_name(key):
                raise InvalidArgument(f"{name}: a key is empty, too long, not valid text or reserved (__name__)")
            total += (_utf8_bytes(key) or 0) + 1 + _stored_size(v, name, depth + 1)  # a valid name has a size
        return total
    raise InvalidArgument(f"{name}: holds a value of an unsupported type")


def _valid_field_name(key: Any) -> bool:
    if not isinstance(key, str):
        return False
    size = _utf8_bytes(key)
    return size is not None and 0 < size <= MAX_ID_BYTES and not _RESERVED.match(key)


def card_ids(ids: Any) -> list[str]:
    if not isinstance(ids, list) or not ids:
        raise InvalidArgument("card_ids: at least one card id is required")
    if len(ids) > MAX_CARD_IDS:
        raise InvalidArgument(f"card_ids: {len(ids)} ids is over the limit of {MAX_CARD_IDS}")
    if not all(_valid_id(c) for c in ids):
        raise InvalidArgument(
            "card_ids: every id must be a non-empty string without '/', of valid text, and not a reserved id (__name__)"
        )
    card_ids = list(dict.fromkeys(ids))  # de-duplicated, order kept
    size = sum(len(c.encode("utf-8")) + 1 for c in card_ids)
    if size > MAX_CARD_ID_BYTES:
        raise InvalidArgument(f"card_ids: {size:,} bytes of ids is over the limit of {MAX_CARD_ID_BYTES:,}")
    return card_ids


def _collection(coll: Any) -> Collection:
    coll = {} if coll is None else coll
    if not isinstance(coll, dict):
        raise InvalidArgument("collection: must be an object")
    description = coll.get("description", "")
    if not isinstance(description, str) or len(description) > MAX_DESCRIPTION_CHARS or _utf8_bytes(description) is None:
        raise InvalidArgument(
            f"collection.description: must be valid text of at most {MAX_DESCRIPTION_CHARS} characters"
        )
    configuration = coll.get("configuration") or {}
    if not isinstance(configuration, dict):
        raise InvalidArgument("collection.configuration: must be an object")
    size = _stored_size(configuration, "collection.configuration", depth=0)
    if size > MAX_CONFIGURATION_BYTES:
        raise InvalidArgument(
            f"collection.configuration: {size:,} bytes is over the limit of {MAX_CONFIGURATION_BYTES:,}"
        )
    return Collection(description, configuration)


def create_chat(
    data: Any, env: Mapping[str, str] | None = None, own_keys: frozenset[str] = frozenset()
) -> CreateChatRequest:
    if not isinstance(data, dict):
        raise InvalidArgument("request: must be an object")
    message = content(data.get("initial_message"), "initial_message")
    given = [k for k in ("card_ids", "query", "collection_id") if data.get(k) is not None]
    if given[:2] == ["card_ids", "query"]:
        raise InvalidArgument("query: give card_ids or query, not both")
    if len(given) > 1:
        raise InvalidArgument("collection_id: give it instead of card_ids or query, not beside them")
    saved = doc_id(data, "collection_id") if given == ["collection_id"] else None
    query = from_request(data["query"], "query") if given == ["query"] else None
    ids = [] if query is not None or saved is not None else card_ids(data.get("card_ids"))

    model_id = _model(data.get("model") or models.default_model_id(env, own_keys), own_keys, env)
    coll = _collection(data.get("collection"))
    pins = _pinned(data.get("pinned_card_ids"))
    look = data.get("look_further", LOOK_FURTHER_DEFAULT)
    if not isinstance(look, bool):
        raise InvalidArgument("look_further: must be true or false")
    return CreateChatRequest(ids, message, model_id, _background_fraction(data), coll, query, saved, pins, look)


def _pinned(ids: Any) -> list[str]:
    if ids is None:
        return []
    if not isinstance(ids, list) or len(ids) > MAX_PINS or not all(_valid_id(c) for c in ids):
        raise InvalidArgument(f"pinned_card_ids: at most {MAX_PINS} valid card ids")
    return list(dict.fromkeys(ids))


def _model(model_id: Any, own_keys: frozenset[str], env: Mapping[str, str] | None) -> str:
    """A known model the caller may use: the deployment holds its key, or the
    caller holds their own for its provider (`own_keys`)."""
    spec = models.spec_of(model_id, env) if isinstance(model_id, str) else None
    if spec is None:
        raise InvalidArgument(f"model: unknown model {str(model_id)[:60]!r}")
    if not models.key_present(spec, env) and spec.provider not in own_keys:
        raise InvalidArgument(f"model: {spec.label} is not available here (no API key is configured for it)")
    return spec.id


def _background_fraction(data: dict[str, Any]) -> float:
    fraction = data.get("background_percentage", DEFAULT_BACKGROUND_FRACTION)
    if (
        isinstance(fraction, bool)
        or not isinstance(fraction, (int, float))
        or not math.isfinite(fraction)
        or not 0 < fraction <= 1
    ):
        raise InvalidArgument("background_percentage: must be a number above 0 and at most 1")
    return float(fraction)


def post_message(data: Any) -> tuple[str, str]:
    """(chat_id, content)"""
    return doc_id(data, "chat_id"), content(data.get("content"))


def branch_chat(data: Any) -> tuple[str, int, str]:
    """(chat_id, message_index, content)"""
    chat_id = doc_id(data, "chat_id")
    index = data.get("message_index")
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < _INT64:
        raise InvalidArgument("message_index: must be a whole number ≥ 0")
    return chat_id, index, content(data.get("content"))


# --- users' own API keys (access/own_keys.py) -----------------------------------

#: What each provider's API key looks like, and how a message describes it:
#: a paste of the wrong thing is refused before anything is stored. A refusal
#: never repeats what was sent.
API_KEY_SHAPES: dict[str, tuple[re.Pattern[str], str]] = {
    "anthropic": (re.compile(r"sk-ant-[A-Za-z0-9_-]{20,250}"), "an Anthropic API key (sk-ant-…)"),
    "openai": (re.compile(r"sk-(?!ant-)[A-Za-z0-9_-]{20,250}"), "an OpenAI API key (sk-…)"),
    "gemini": (re.compile(r"AIza[0-9A-Za-z_-]{35}"), "a Gemini API key (AIza…, 39 characters)"),
    # an endpoint's key has no one shape; a local server that takes none is given any word
    compatible.OWN: (re.compile(r"[!-~]{1,512}"), "an API key (printable characters, no spaces)"),
}


def key_provider(data: Any) -> str:
    """`provider`: one whose models take an API key."""
    provider = data.get("provider") if isinstance(data, dict) else None
    if not isinstance(provider, str) or provider not in API_KEY_SHAPES:
        raise InvalidArgument(f"provider: must be one of {', '.join(sorted(API_KEY_SHAPES))}")
    return provider


def api_key(data: Any) -> tuple[str, str, str | None]:
    """(provider, key, base_url) for setApiKey, the key trimmed and of its provider's shape;
    `base_url` an OpenAI-compatible endpoint's only (access/own_keys.py checks where it leads)."""
    provider = key_provider(data)
    key = data.get("key")
    pattern, described = API_KEY_SHAPES[provider]
    if not isinstance(key, str) or not pattern.fullmatch(key.strip()):
        raise InvalidArgument(f"key: does not look like {described}")
    base_url = data.get("base_url")
    if provider != compatible.OWN:
        if base_url is not None:
            raise InvalidArgument(f"base_url: only for provider {compatible.OWN}")
        return provider, key.strip(), None
    if not isinstance(base_url, str) or not base_url.strip():
        raise InvalidArgument("base_url: required: the endpoint's base URL, such as https://host/v1")
    return provider, key.strip(), base_url.strip()


@dataclass(frozen=True)
class ContinueChatRequest:
    chat_id: str
    model: str | None  # None: the domain's choice (chat/continuation.py)
    background_fraction: float
    #: a scope of the caller's cards beside the ones the copied answers cite; None: those alone
    query: CollectionQuery | None = None


def continue_chat(
    data: Any, own_keys: frozenset[str] = frozenset(), env: Mapping[str, str] | None = None
) -> ContinueChatRequest:
    """continueChat({chat_id, model?, background_percentage?, query?}): `query` as createChat's."""
    chat_id = doc_id(data, "chat_id")
    model_id = data.get("model")
    if model_id is not None:
        model_id = _model(model_id, own_keys, env)
    query = from_request(data["query"], "query") if data.get("query") is not None else None
    return ContinueChatRequest(chat_id, model_id, _background_fraction(data), query)


MAX_COMMENT_CHARS = 2_000


@dataclass
class RateAnswerRequest:
    message_id: str
    rating: Rating | None  # None clears the rating
    comment: str


def rate_answer(data: Any) -> RateAnswerRequest:
    """rateAnswer({message_id, rating: "up" | "down" | null, comment?})"""
    message_id = doc_id(data, "message_id")
    if "rating" not in data:
        raise InvalidArgument('rating: required: "up", "down" or null (clears the rating)')
    rating = data["rating"]
    if rating not in (None, "up", "down") or isinstance(rating, bool):
        raise InvalidArgument('rating: must be "up", "down" or null (clears the rating)')
    comment = data.get("comment")
    comment = "" if comment is None else comment
    if not isinstance(comment, str) or _utf8_bytes(comment) is None:
        raise InvalidArgument("comment: must be valid text")
    comment = comment.strip()
    if len(comment) > MAX_COMMENT_CHARS:
        raise InvalidArgument(f"comment: {len(comment):,} characters is over the limit of {MAX_COMMENT_CHARS:,}")
    return RateAnswerRequest(message_id, rating, comment)


# --- collections described by a query: createChat's `query`, searchCards ---------

SEARCH_LIMIT_DEFAULT = 20
SEARCH_LIMIT_MAX = 50


@dataclass
class SearchCardsRequest:
    text: str
    limit: int
    query: CollectionQuery  # scope, tag and visibility; its text is None (the search ranks, it does not filter)


def search_cards(data: Any) -> SearchCardsRequest:
    """searchCards({text, limit?, scope?, owner?, tag?, visibility?})"""
    text = _search_text(data, MAX_QUERY_TEXT_CHARS)
    limit = data.get("limit", SEARCH_LIMIT_DEFAULT)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= SEARCH_LIMIT_MAX:
        raise InvalidArgument(f"limit: must be a whole number from 1 to {SEARCH_LIMIT_MAX}")
    rest = {k: v for k, v in data.items() if k not in ("text", "limit")}
    return SearchCardsRequest(text, limit, from_request(rest, "", ("scope", "owner", "tag", "visibility")))


def search_chats(data: Any) -> str:
    """searchChats({text}): words of at most MAX_CHAT_SEARCH_CHARS characters."""
    return _search_text(data, MAX_CHAT_SEARCH_CHARS)


def _search_text(data: Any, max_chars: int) -> str:
    """A search's `text`: required, trimmed, at most `max_chars` characters."""
    if not isinstance(data, dict):
        raise InvalidArgument("request: must be an object")
    text = request_string(data, "text", "", max_chars)
    if text is None:
        raise InvalidArgument("text: words to search for are required")
    return text
