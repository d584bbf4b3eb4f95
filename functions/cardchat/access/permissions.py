"""Who may do what on the server: every permission check of the domain, in one place.

firestore.rules decides what a client may read or write directly; the callables
decide here. Three questions, each answered once:

- may this account use the AI (users/{uid}.may_use_ai, set by the admin CLI; or, for
  a model whose provider they hold their own API key for, without it: AIAccess)?
- is this caller the chat's owner (the only one who may post, retry, branch or delete)?
- which cards may this user read (documents.Card.visible_to, the rules' cardIsVisible()
  without its admin clause: it sits on the shape so that every layer can cull)?
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cardchat.access.ratelimit import Limits
from cardchat.errors import NotFound, PermissionDenied
from cardchat.llm.models import ModelSpec, key_present, spec_of
from cardchat.schema.documents import Card, UserDoc

if TYPE_CHECKING:
    from cardchat.repo.db import Db


def is_owner(doc: Mapping[str, Any] | None, uid: str | None) -> bool:
    """`doc` (a chats, chat_private or chat_background document) belongs to `uid`."""
    return doc is not None and bool(uid) and doc.get("owner") == uid


def require_owner(chat: dict[str, Any] | None, uid: str) -> dict[str, Any]:
    """The chats document `chat`, if `uid` owns it; NotFound without one."""
    if chat is None:
        raise NotFound("chat not found")
    if not is_owner(chat, uid):
        raise PermissionDenied("only the chat's owner can do this")
    return chat


def readable_cards(cards: Mapping[str, Card], uid: str | None, ids: Iterable[str] | None = None) -> dict[str, Card]:
    """The cards of `cards` (in the order of `ids`, if given) that `uid` may read.
    Unreadable and missing ones are dropped without a trace: a caller learns the
    same whether such an id exists or not."""
    order = cards if ids is None else ids
    return {cid: c for cid in order if (c := cards.get(cid)) is not None and c.visible_to(uid)}


def grant_ai(db: Db, uid: str, allow: bool = True, admin: bool | None = None) -> UserDoc:
    """users/{uid}.may_use_ai (and admin, unless None: then kept as stored)."""
    from cardchat.repo.users import get_user, set_user

    stored = get_user(db, uid) or {}
    doc = UserDoc(may_use_ai=allow, admin=bool(stored.get("admin", False)) if admin is None else admin)
    set_user(db, uid, doc)
    return doc


@dataclass(frozen=True)
class AIAccess:
    """What a caller may do with the models: AI use granted by an admin, and
    the providers they hold their own API key for (access/own_keys.py)."""

    may_use_ai: bool
    own_keys: frozenset[str] = frozenset()

    def offers(self, spec: ModelSpec) -> bool:
        """The caller may pick this model: a key for it is there, theirs or the deployment's."""
        return spec.provider in self.own_keys or key_present(spec)

    def admit(self, model_id: str | None) -> Limits:
        """The rate limits a call answered by `model_id` runs under: on the
        caller's own key, no daily cap and no AI grant needed; else AI use
        must have been granted (PermissionDenied)."""
        spec = spec_of(model_id)
        if spec is not None and spec.key_env is not None and spec.provider in self.own_keys:
            return Limits.from_env().on_own_key()
        if not self.may_use_ai:
            raise PermissionDenied(NO_AI)
        return Limits.from_env()


NO_AI = (
    "Your account may not use the AI features yet; ask an admin to grant access, or add your own API key in Settings"
)


def ai_access(db: Db, uid: str) -> AIAccess:
    from cardchat.access.own_keys import providers_of
    from cardchat.repo.users import get_user

    return AIAccess(UserDoc.from_dict(get_user(db, uid)).may_use_ai, providers_of(db, uid))


def model_of_chat(db: Db, chat_id: str) -> str | None:
    """The model a chat's next answer is made with (None: no such chat; its endpoint says so)."""
    from cardchat.repo.chats import get_chat

    return (get_chat(db, chat_id) or {}).get("model")


def model_of_message(db: Db, message_id: str) -> str | None:
    from cardchat.repo.messages import get_message

    found = get_message(db, message_id)
    if found is None:
        return None
    return found.model or (model_of_chat(db, found.chat) if found.chat else None)
