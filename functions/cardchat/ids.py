"""Every document id the server makes, in one place."""

import hashlib
import secrets
import string
import uuid

from cardchat.schema.card_syncs import PATH_SHARDS
from cardchat.schema.documents import SHARED

_ID_ALPHABET = string.ascii_letters + string.digits

#: Between a card id's owner uid and the rest (common/collections.json card_ids).
CARD_ID_SEPARATOR: str = SHARED["card_ids"]["separator"]


def own_card_id(owner: str, local: str) -> str:
    """The id `local` takes in `owner`'s namespace: the only ids firestore.rules
    lets a client create, so nobody probes, takes or re-creates another owner's."""
    return f"{owner}{CARD_ID_SEPARATOR}{local}"


def is_own_card_id(owner: str, card_id: str) -> bool:
    """Whether `card_id` is in `owner`'s namespace (firestore.rules inOwnNamespace();
    common/card_id_cases.json). A uid holding the separator has none."""
    return len(card_id) > len(owner) + len(CARD_ID_SEPARATOR) and card_id.split(CARD_ID_SEPARATOR)[0] == owner


def new_chat_id() -> str:
    return uuid.uuid4().hex[:20]


def chat_viewer_id(chat_id: str, uid: str) -> str:
    """chat_viewers/{id}: the rules look it up by this very shape. Chat ids hold no "_", so one
    id names one (chat, viewer) pair."""
    return f"{chat_id}_{uid}"


def new_message_id() -> str:
    """Same shape as a Firestore auto-id: 20 random alphanumerics."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(20))


def first_message_id(chat_id: str, index: int) -> str:
    """Ids of a chat's first two messages (question 0, answer 1): derived from
    the chat id, so the first question can be found without a query."""
    return f"{chat_id}-{index:04d}"


def chunk_id(message_id: str, index: int) -> str:
    """chat_messages_streaming/{message_id}_{index:06d}."""
    return f"{message_id}_{index:06d}"


def new_run_id() -> str:
    """The token a generation run holds the answer it took by."""
    return uuid.uuid4().hex


def synced_card_id(owner: str, source: str, path: str) -> str:
    """The card a synced file (syncCards) writes: the same for the same (owner, source, path) at
    every sync, in the owner's namespace; hashed, since a path may hold what an id may not ('/')."""
    digest = hashlib.sha256(f"{source}\n{path}".encode()).hexdigest()[:32]
    return own_card_id(owner, f"sync-{digest}")


def sync_paths_id(owner: str, source: str, name: str) -> str:
    """card_sync_paths/{id}: the shard of the owner's `source`'s path index that holds the paths of
    link_name `name` (one of schema/card_syncs.PATH_SHARDS)."""
    shard = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16) % PATH_SHARDS
    return f"{owner}:{hashlib.sha256(source.encode()).hexdigest()[:32]}:{shard}"


def sync_paths_built_id(owner: str, source: str) -> str:
    """card_sync_paths/{id}: the mark that the owner's `source` has its path index (a shard is never named so)."""
    return f"{owner}:{hashlib.sha256(source.encode()).hexdigest()[:32]}:built"


def sync_run_key(owner: str, source: str, run: str) -> str:
    """card_sync_runs/{key}: the head of the client's run `run` over the owner's `source`; hashed,
    so a run id another owner or source uses names another run."""
    digest = hashlib.sha256(f"{source}\n{run}".encode()).hexdigest()[:32]
    return f"{owner}:{digest}"


def sync_run_part_id(key: str, card_ids: list[str]) -> str:
    """A part of the run `key`: from the cards it lists, so a request sent again writes the same part."""
    digest = hashlib.sha256("\n".join(sorted(card_ids)).encode()).hexdigest()[:16]
    return f"{key}:{digest}"
