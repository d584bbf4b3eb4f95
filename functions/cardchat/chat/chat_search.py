"""searchChats: the titles and messages of the caller's chats and of chats shared with them.

The caller's own index (repo/chat_search.py) answers: the head and the shards of the
query's terms, never every message. Every hit is checked again against the chat as it is
now (owner, or a viewer doc of the caller's), so a chat deleted or unshared since it was
indexed is never shown; then only the messages shown are read, for their passages. The
index holds titles and transcript text alone: nothing of a hidden background is in it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from cardchat.access import permissions

if TYPE_CHECKING:
    from cardchat.repo.db import Db

#: Results of one search at most, and of one chat.
MAX_RESULTS = 20
PER_CHAT = 3


@dataclass(frozen=True)
class ChatSearchResult:
    chat_id: str
    title: str
    message_index: int | None  # None: the title matched; the SPA opens the chat at this message
    role: str  # "user", "assistant", or "title"
    passage: str
    highlights: list[tuple[int, int]] = field(default_factory=list)  # [start, end) of each match in `passage`
    shared: bool = False  # a chat someone shared with the caller


@dataclass(frozen=True)
class ChatSearchAnswer:
    results: list[ChatSearchResult]

    def to_dict(self) -> dict[str, Any]:
        return {"results": [asdict(r) for r in self.results]}


def search_chats(db: Db, uid: str, text: str, per_minute: int | None = None) -> ChatSearchAnswer:
    """The best hits of `text` among `uid`'s chats and those shared with them, after one slot of the
    user's search minute (the Cards page's search shares it; ResourceExhausted past it)."""
    from cardchat.access import ratelimit
    from cardchat.repo import chat_search as index
    from cardchat.retrieval import chat_terms
    from cardchat.schema.documents import SEARCH_WINDOW

    ratelimit.spend(db, uid, SEARCH_WINDOW, "searches", per_minute=per_minute)
    words = chat_terms.terms(text)[: chat_terms.MAX_QUERY_TERMS]
    if not words:
        return ChatSearchAnswer([])
    keys = {w: chat_terms.term_key(w) for w in words}
    head, postings = index.read(db, uid, (chat_terms.shard_of(k) for k in keys.values()))
    found = {w: postings.get(k) or [] for w, k in keys.items()}
    titles = {k: str(v.get("title") or "") for k, v in head.items()}
    hits = chat_terms.rank(words, found, titles, MAX_RESULTS * 2, PER_CHAT)
    chats = {h.chat_key: str(head[h.chat_key].get("chat")) for h in hits if h.chat_key in head}
    readable = _readable(db, uid, set(chats.values()))
    hits = [h for h in hits if chats.get(h.chat_key) in readable][:MAX_RESULTS]
    wanted = [(chats[h.chat_key], h.message_index) for h in hits if h.message_index is not None]
    messages = index.messages_at(db, wanted)
    results = []
    for h in hits:
        chat_id = chats[h.chat_key]
        title, owner = readable[chat_id]
        if h.message_index is None:
            shown, marks = chat_terms.passage(title, words)
            role = "title"
        elif (m := messages.get((chat_id, h.message_index))) is not None:
            shown, marks = chat_terms.passage(str(m.get("content") or ""), words)
            role = str(m.get("role") or "")
        else:
            continue
        results.append(ChatSearchResult(chat_id, title, h.message_index, role, shown, marks, owner != uid))
    return ChatSearchAnswer(results)


def _readable(db: Db, uid: str, chat_ids: set[str]) -> dict[str, tuple[str, str]]:
    """{chat id: (title, owner)} of the chats of `chat_ids` that `uid` owns or is a viewer of now."""
    from cardchat.repo import chat_search as index

    chats = index.chats_of(db, sorted(chat_ids))
    viewing = index.viewing(db, uid, [c for c, d in chats.items() if not permissions.is_owner(d, uid)])
    return {
        c: (str(d.get("title") or ""), str(d.get("owner") or ""))
        for c, d in chats.items()
        if permissions.is_owner(d, uid) or c in viewing
    }
