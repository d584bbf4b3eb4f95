"""The personal-access-token callables' requests (createAccessToken, revokeAccessToken), apart from
parsing/requests.py as pin_requests.py is: each field checked once, INVALID_ARGUMENT naming it."""

from __future__ import annotations

from typing import Any

from cardchat.errors import InvalidArgument
from cardchat.parsing.requests import _utf8_bytes, doc_id
from cardchat.schema.accounts import TOKEN_SCOPES

MAX_TOKEN_LABEL_CHARS = 100


def access_token_label(data: Any) -> str:
    """createAccessToken's `label`: what the owner calls the token ("Claude Desktop on my laptop")."""
    label = data.get("label") if isinstance(data, dict) else None
    if not isinstance(label, str) or not label.strip():
        raise InvalidArgument("label: a name for the token is required")
    if len(label) > MAX_TOKEN_LABEL_CHARS or _utf8_bytes(label) is None:
        raise InvalidArgument(f"label: at most {MAX_TOKEN_LABEL_CHARS} characters of text")
    return label.strip()


def access_token_scope(data: Any) -> str:
    """createAccessToken's `scope`: `read` when absent (what every token did before scopes)."""
    scope = data.get("scope", "read") if isinstance(data, dict) else "read"
    if scope not in TOKEN_SCOPES:
        raise InvalidArgument(f"scope: one of {', '.join(TOKEN_SCOPES)}")
    return str(scope)


def revoke_access_token(data: Any) -> tuple[str | None, str | None]:
    """revokeAccessToken's `token` (the secret itself) or `id` (from the owner's list): exactly one."""
    token = data.get("token") if isinstance(data, dict) else None
    given_id = data.get("id") if isinstance(data, dict) else None
    if (token is None) == (given_id is None):
        raise InvalidArgument("token: give the token or its id (one of them)")
    if token is not None:
        if not isinstance(token, str) or not 0 < len(token) <= 200:
            raise InvalidArgument("token: not an access token")
        return token, None
    return None, doc_id(data, "id")
