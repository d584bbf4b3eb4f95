"""Bring your own key: a user stores their own Anthropic / OpenAI / Gemini
API key, and their chats on that provider's models are answered with it; or
an OpenAI-compatible endpoint of their own: its base URL (checked by
providers/egress.py before it is stored and again at every call) with its key.

The key is sealed (llm/keycrypt.py: AES-GCM under a key held in env / Firebase
secrets) into the server-only `user_api_keys/{uid}`; only its last four
characters are ever shown back. With a key of their own a user sees the
provider's models even when the deployment holds no key for it, may chat
without `may_use_ai`, and is not held to the deployment's daily token cap
(the per-minute limit still applies: permissions.AIAccess). A failure on their key
says it is theirs that failed (headlines.OWN_KEY_PREFIX). The key is
unsealed only for the call that uses it and scrubbed from anything logged.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from cardchat.errors import InvalidArgument
from cardchat.llm import compatible, keycrypt
from cardchat.llm.models import ModelSpec
from cardchat.providers import egress
from cardchat.providers.base import ProviderError
from cardchat.repo import api_keys as repo
from cardchat.schema.accounts import StoredApiKey
from cardchat.schema.documents import UserDoc
from cardchat.schema.documents import now as utc_now

if TYPE_CHECKING:
    from cardchat.repo.db import Db


def _context(uid: str, provider: str) -> str:
    return f"{uid}/{provider}"


def _shown(provider: str, record: dict[str, Any]) -> dict[str, Any]:
    """What a client may see of a stored key: never the key, nor an endpoint's whole URL (its host only)."""
    updated = record.get("updated")
    when = updated.isoformat() if isinstance(updated, datetime) else None
    shown = {"provider": provider, "last4": str(record.get("last4") or ""), "updated": when}
    return shown | ({"host": str(record["host"])} if record.get("host") else {})


def set_key(
    db: Db, uid: str, provider: str, key: str, now: datetime | None = None, base_url: str | None = None
) -> dict[str, Any]:
    """Stores (or replaces) `uid`'s key for `provider` (parsed: parsing.requests.api_key), with
    its endpoint's `base_url` for an OpenAI-compatible one (InvalidArgument naming base_url when
    the guard refuses it); returns what may be shown."""
    ciphertext, nonce = keycrypt.seal(key, _context(uid, provider))
    record = StoredApiKey(ciphertext=ciphertext, nonce=nonce, last4=key[-4:], updated=now or utc_now())
    if base_url is not None:
        try:
            checked = egress.check(base_url)
        except egress.Refused as e:
            raise InvalidArgument(f"base_url: {e}") from None
        record.url_ciphertext, record.url_nonce = keycrypt.seal(checked.url, _context(uid, provider) + "/base_url")
        record.host = compatible.host_of(checked.url)
    repo.put(db, uid, provider, record)
    return _shown(provider, record.to_dict())


def delete_key(db: Db, uid: str, provider: str) -> None:
    repo.delete(db, uid, provider)


def list_keys(db: Db, uid: str) -> list[dict[str, Any]]:
    """The keys `uid` holds, as may be shown: provider, last 4 characters, when stored."""
    return [_shown(p, r) for p, r in sorted(repo.get(db, uid).items())]


def providers_of(db: Db, uid: str) -> frozenset[str]:
    """The providers `uid` holds a key for (nothing is unsealed)."""
    return frozenset(repo.get(db, uid))


def key_for(db: Db, uid: str, provider: str) -> str | None:
    """`uid`'s own key for `provider`, unsealed; None when they hold none."""
    record = repo.get(db, uid).get(provider)
    if record is None:
        return None
    return keycrypt.unseal(bytes(record["ciphertext"]), bytes(record["nonce"]), _context(uid, provider))


def endpoint_for(db: Db, uid: str) -> tuple[str, str] | None:
    """`uid`'s own OpenAI-compatible endpoint, unsealed: (base URL, key); None when they hold none."""
    provider = compatible.OWN
    record = repo.get(db, uid).get(provider)
    if record is None or not record.get("url_ciphertext"):
        return None
    url = keycrypt.unseal(
        bytes(record["url_ciphertext"]), bytes(record["url_nonce"]), _context(uid, provider) + "/base_url"
    )
    return url, keycrypt.unseal(bytes(record["ciphertext"]), bytes(record["nonce"]), _context(uid, provider))


def base_url_for(db: Db, uid: str | None, spec: ModelSpec) -> str | None:
    """The base URL an answer on `spec` of `uid`'s chat is sent to, when it is their own endpoint's."""
    if spec.provider != compatible.OWN or not uid:
        return None
    found = endpoint_for(db, uid)
    return found[0] if found else None


def run_key(db: Db, owner: str, spec: ModelSpec, admitted_on_own_key: bool = False) -> str | None:
    """The key an answer of `owner`'s chat on `spec` is made with: their own
    when they hold one (None: the deployment's). An answer admitted on their
    own key (ChatMessage.own_key) skipped the daily cap and reserved nothing:
    if that key was deleted since, it fails (own_key_gone) rather than run,
    uncounted, on the deployment's key, even for an owner granted AI use:
    otherwise storing a key, posting and deleting it would skip the cap. One
    admitted on the deployment's key needs AI use still granted."""
    if spec.key_env is None or not owner:
        return None
    own = key_for(db, owner, spec.provider)
    if own is not None:
        return own
    from cardchat.repo.users import get_user

    if admitted_on_own_key or not UserDoc.from_dict(get_user(db, owner)).may_use_ai:
        raise ProviderError("own_key_gone", provider=spec.provider, detail="the owner's own key was deleted")
    return None
