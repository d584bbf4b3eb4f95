"""suggestFollowups: up to three questions the chat's collection can answer next, for its owner.

After an answer, the cards nearest to the ones it cited that it did not cite
itself are what the collection holds close by: their titles become the
questions ("What do the cards say about “Neap tides”?"; a title that is a
question already is asked as it is). Nearness is the hybrid ranker's over the
chat's own source (chat/candidates.resolve_source, resolved for the owner now:
a card they can no longer read is never suggested): the cited cards' stored
vectors, averaged, for the dense half and their titles for BM25.

The titles are of cards behind the chat, which its visitors and viewers must
never learn, so nothing is stored: the owner's callable computes them on
demand, and anyone else is refused (PermissionDenied, as every other owner-only
call on a chat). It takes a slot of the caller's search minute, once the call is allowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from cardchat.errors import FailedPrecondition, NotFound

if TYPE_CHECKING:
    from datetime import datetime

    from cardchat.chat.collection import CardSource
    from cardchat.repo.db import Db
    from cardchat.schema.documents import Card

#: Questions suggested after an answer, at most.
MAX_FOLLOWUPS = 3
#: Characters of a title a question quotes; a longer one is cut with an ellipsis.
TITLE_CHARS = 120
#: Cards ranked past MAX_FOLLOWUPS, for the places of untitled cards and repeated titles.
RANK_SLACK = 5


def suggest_followups(
    db: Db, uid: str, message_id: str, now: datetime | None = None, per_minute: int | None = None
) -> list[str]:
    """At most MAX_FOLLOWUPS questions after the complete answer `message_id` of a chat `uid` owns."""
    from cardchat.access import permissions, ratelimit
    from cardchat.chat.card_search import best_cards
    from cardchat.repo import cards as card_repo
    from cardchat.repo.chats import get_chat, get_private
    from cardchat.repo.messages import get_message
    from cardchat.schema.documents import SEARCH_WINDOW

    answer = get_message(db, message_id)
    if answer is None:
        raise NotFound("answer not found")
    permissions.require_owner(get_chat(db, answer.chat), uid)
    if answer.role != "assistant" or answer.status != "complete":
        raise FailedPrecondition("only a complete answer has suggested follow-ups")
    # once the call is allowed: a refused one spends nothing
    ratelimit.spend(db, uid, SEARCH_WINDOW, "searches", now, per_minute)
    card_ids = list((get_private(db, answer.chat) or {}).get("card_ids") or [])
    cited_ids = cited(card_ids, answer.sources or [])
    cards = permissions.readable_cards(card_repo.load_cards(db, cited_ids), uid, cited_ids)
    if not cards:
        return []
    text = " ".join(c.title for c in cards.values())
    found = best_cards(
        db,
        uid,
        text,
        MAX_FOLLOWUPS + RANK_SLACK,
        _source(db, answer.chat, card_ids),
        _mean_vector(db, cards),
        frozenset(cited_ids),
    )
    near = [card.title for cid, card in found.cards.items() if found.scores[cid] > 0]
    return questions(near, [c.title for c in cards.values()])


def cited(card_ids: Sequence[str], sources: Sequence[int]) -> list[str]:
    """The ids an answer's citation numbers name (1-based into the chat's card ids; "" is a withdrawn card)."""
    return list(dict.fromkeys(card_ids[n - 1] for n in sources if 0 < n <= len(card_ids) and card_ids[n - 1]))


def questions(titles: Sequence[str], cited_titles: Sequence[str] = ()) -> list[str]:
    """A question per title, best first, at most MAX_FOLLOWUPS: none for an empty title, one the
    answer's cited cards share, or one already asked."""
    seen = {t.strip().casefold() for t in cited_titles}
    out: list[str] = []
    for title in titles:
        flat = " ".join(title.split())
        if not flat or flat.casefold() in seen:
            continue
        seen.add(flat.casefold())
        out.append(question(flat))
        if len(out) == MAX_FOLLOWUPS:
            break
    return out


def question(title: str) -> str:
    """The question a card's title suggests: the title itself when it asks one."""
    if len(title) > TITLE_CHARS:
        title = title[: TITLE_CHARS - 1].rstrip() + "…"
    if title.endswith("?"):
        return title
    return f"What do the cards say about “{title.rstrip('.:;!')}”?"


def _source(db: Db, chat_id: str, card_ids: list[str]) -> CardSource:
    """The chat's source as kept (chat_sources), else for a chat made before sources were kept its packed cards."""
    from cardchat.chat.collection import source_of
    from cardchat.repo.chats import get_source

    stored = get_source(db, chat_id)
    return source_of(stored) if stored else [c for c in card_ids if c]


def _mean_vector(db: Db, cards: dict[str, Card]) -> np.ndarray | None:
    """The unit mean of the cards' stored vectors (None: none of them is embedded; the titles are embedded instead)."""
    from cardchat.embeddings import get_embedder
    from cardchat.embeddings.text import embeddable_and_hash
    from cardchat.repo import embeddings as emb_repo

    hashes = {cid: embeddable_and_hash(c.title, c.body)[1] for cid, c in cards.items()}
    vectors = list(emb_repo.load_embeddings(db, hashes, get_embedder().model_id).values())
    if not vectors:
        return None
    mean = np.mean(np.stack(vectors), axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else None
