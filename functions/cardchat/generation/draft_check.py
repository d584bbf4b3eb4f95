"""checkDraft: each claim of a pasted draft judged against the caller's cards.

The draft is split into claims by the rule that finds an answer's uncited claims (claims.py); each
claim is ranked against the chosen collection (the caller's own cards unless they chose another, as a
chat's collection: chat/candidates.py over the retrieval index and its stored vectors, dense ⊕ BM25),
and its CARDS_PER_CLAIM best cards are read and judged:
- `supported`: a passage of one of them says it (the citation checks' rule, citation_checks.py);
- `conflicting`: none says it, and a passage of one of them says otherwise (retrieval/conflicts.py: the same
  subject with another number, date or negation);
- `unsupported`: neither. Its cards are those on its topic (the citation checks' `weak`), if any.

Each claim's cards come with the passage that decided: the one that says it, the one that says
otherwise, or the nearest. Bounded by what the caller chose: the pool is their collection, the cards
read are at most CARDS_PER_CLAIM a claim, and the texts embedded to judge are at most MAX_EMBEDDED
a draft (past it, words alone decide). One slot of the caller's search minute first, so a script
cannot loop it without end. Nothing is written but that slot."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any

from cardchat.generation import citation_checks, claims
from cardchat.retrieval import conflicts

if TYPE_CHECKING:
    from datetime import datetime

    from cardchat.parsing.draft_requests import CheckDraftRequest
    from cardchat.repo.db import Db
    from cardchat.schema.documents import Card

_SPACE_BEFORE_STOP = re.compile(r"\s+([.,;:!?])")

#: The best-ranked cards judged per claim.
CARDS_PER_CLAIM = 3
#: Texts (claims and passages) embedded to judge one draft at most.
MAX_EMBEDDED = 256


@dataclass(frozen=True)
class CardPassage:
    id: str
    title: str
    passage: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "title": self.title, "passage": self.passage}


@dataclass(frozen=True)
class ClaimCheck:
    text: str
    verdict: str  # "supported" | "unsupported" | "conflicting"
    cards: list[CardPassage] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "verdict": self.verdict, "cards": [c.to_dict() for c in self.cards]}


@dataclass(frozen=True)
class DraftCheck:
    claims: list[ClaimCheck]

    def to_dict(self) -> dict[str, Any]:
        return {"claims": [c.to_dict() for c in self.claims]}


def draft_claims(text: str) -> list[str]:
    """The draft's claims, as the uncited-claim rule splits an answer; citations and spacing dropped."""
    out: list[str] = []
    for block in claims.blocks(text):
        for s in claims.sentences(block):
            said = _SPACE_BEFORE_STOP.sub(r"\1", " ".join(claims.CITATION.sub(" ", block[s.start : s.end]).split()))
            if s.claim and said:
                out.append(said)
    return out


def check_draft(
    db: Db, uid: str, req: CheckDraftRequest, now: datetime | None = None, per_minute: int | None = None
) -> DraftCheck:
    """Every claim of `req.text` with its verdict and cards, against `uid`'s cards within `req.query`."""
    from cardchat.access import ratelimit
    from cardchat.schema.documents import SEARCH_WINDOW

    ratelimit.spend(db, uid, SEARCH_WINDOW, "draft checks and searches", now, per_minute)
    said = draft_claims(req.text)
    best = _best_cards(db, uid, req, said)
    split = {cid: citation_checks.passages(f"{card.title}\n\n{card.body}") for cid, card in best.cards.items()}
    pairs = [(claim, cid) for claim, ids in zip(said, best.per_claim, strict=True) for cid in ids if cid in split]
    found = citation_checks.verdicts(
        [(claim, split[cid]) for claim, cid in pairs], citation_checks.shared_vectors(), MAX_EMBEDDED
    )
    verdicts = dict(zip(pairs, found, strict=True))
    out = []
    for claim, ids in zip(said, best.per_claim, strict=True):
        judged = [(cid, best.cards[cid].title, split[cid], verdicts[(claim, cid)]) for cid in ids if cid in split]
        out.append(_claim_check(claim, judged))
    return DraftCheck(out)


def _claim_check(claim: str, judged: list[tuple[str, str, list[str], str]]) -> ClaimCheck:
    """One claim's verdict from its cards' (id, title, passages, citation-check verdict)."""
    near = citation_checks.nearest_passage
    saying = [CardPassage(i, t, near(claim, ps) or "") for i, t, ps, v in judged if v == "supported"]
    if saying:
        return ClaimCheck(claim, "supported", saying)
    otherwise = [CardPassage(i, t, c.passage) for i, t, ps, _ in judged if (c := conflicts.conflict(claim, ps))]
    if otherwise:
        return ClaimCheck(claim, "conflicting", otherwise)
    on_topic = [CardPassage(i, t, near(claim, ps) or "") for i, t, ps, v in judged if v == "weak"]
    return ClaimCheck(claim, "unsupported", on_topic)


@dataclass(frozen=True)
class _Best:
    cards: dict[str, Card]  # every card read, readable, by id
    per_claim: list[list[str]]  # each claim's best card ids, best first


def _best_cards(db: Db, uid: str, req: CheckDraftRequest, said: list[str]) -> _Best:
    """Each claim's CARDS_PER_CLAIM best cards of the collection, ranked over the index, read once."""
    from cardchat.access import permissions
    from cardchat.chat import candidates
    from cardchat.embeddings import embed_queries, get_embedder
    from cardchat.repo import cards as card_repo

    if not said:
        return _Best({}, [])
    pool = candidates.resolve(db, uid, query=req.query)
    if not len(pool):
        return _Best({}, [[] for _ in said])
    unique = list(dict.fromkeys(said))
    embedder = get_embedder()
    vectors = embed_queries(embedder, unique)
    if embedder is get_embedder("minilm"):  # the checks' own model: judging reuses these (none for a zero vector)
        citation_checks.shared_vectors().put({c: v for c, v in zip(unique, vectors, strict=True) if v.any()})
    rankings = pool.ranker().rank_all(unique, vectors)
    ranked = {
        claim: [pool.ids[i] for i in islice(r.order, CARDS_PER_CLAIM)]
        for claim, r in zip(unique, rankings, strict=True)
    }
    wanted = list(dict.fromkeys(cid for ids in ranked.values() for cid in ids))
    read = card_repo.load_cards(db, [c for c in wanted if c not in pool.loose])
    cards = permissions.readable_cards({**read, **{c: pool.loose[c] for c in wanted if c in pool.loose}}, uid, wanted)
    return _Best(cards, [[cid for cid in ranked[claim] if cid in cards] for claim in said])
