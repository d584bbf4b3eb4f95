"""One definition of a valid card: what its fields may hold.

The limits are in common/collections.json (`card_limits`), so this module,
firestore.rules (owners writing their own cards), the rules tests' fixtures
and the SPA's editor and importer (web/src/cards/cardvalidity.ts) agree;
common/card_validity_cases.json holds cases both validators are tested on.
"""

from __future__ import annotations

from typing import Any

from cardchat.schema.documents import SHARED

LIMITS: dict[str, Any] = SHARED["card_limits"]
TITLE_MAX_CHARS: int = LIMITS["title_max_chars"]
BODY_MAX_BYTES: int = LIMITS["body_max_bytes"]
TAGS_MAX: int = LIMITS["tags_max"]
TAG_MAX_CHARS: int = LIMITS["tag_max_chars"]
VIEWERS_MAX: int = LIMITS["viewers_max"]
VIEWER_MAX_CHARS: int = LIMITS["viewer_max_chars"]
VISIBILITIES: tuple[str, ...] = tuple(LIMITS["visibilities"])
#: The one visibility under which `viewers` may name anyone.
VIEWERS_VISIBILITY: str = LIMITS["viewers_visibility"]


def problems(card: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, why) for every content field of `card` that is not valid:
    title, body, visibility, viewers, tags (owner and dates are the writer's)."""
    out: list[tuple[str, str]] = []
    title, body = card.get("title"), card.get("body")
    if not isinstance(title, str) or not title.strip():
        out.append(("title", "is missing or empty"))
    elif len(title) > TITLE_MAX_CHARS:
        out.append(("title", f"is longer than {TITLE_MAX_CHARS} characters"))
    if not isinstance(body, str) or not body.strip():
        out.append(("body", "is missing or empty"))
    elif len(body.encode()) > BODY_MAX_BYTES:
        out.append(("body", f"is larger than {BODY_MAX_BYTES:,} bytes"))
    visibility = card.get("visibility")
    if visibility not in VISIBILITIES:
        out.append(("visibility", f"must be one of {', '.join(VISIBILITIES)}, not {visibility!r}"))
    out += _list_problems("tags", card.get("tags"), TAGS_MAX, TAG_MAX_CHARS)
    viewers = card.get("viewers")
    out += _list_problems("viewers", viewers, VIEWERS_MAX, VIEWER_MAX_CHARS)
    if isinstance(viewers, list) and viewers and visibility != VIEWERS_VISIBILITY:
        out.append(("viewers", f"may name people only on a {VIEWERS_VISIBILITY} card"))
    return out


def _list_problems(name: str, value: Any, max_items: int, max_chars: int) -> list[tuple[str, str]]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() and "\n" not in v for v in value):
        return [(name, "must be a list of non-empty strings without line breaks")]
    if len(value) > max_items:
        return [(name, f"has more than {max_items} entries")]
    if any(len(v) > max_chars for v in value):
        return [(name, f"has an entry longer than {max_chars} characters")]
    return []
