"""checkDraft's domain (generation/draft_check.py) on the Firestore emulator: each claim of a draft
against the caller's cards, ranked over their retrieval index and stored vectors, judged supported,
conflicting (another number, date or negation on the same subject) or unsupported; others' cards
only when the caller chose them, and one slot of the search minute a check."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cardchat.embeddings import get_embedder, pack
from cardchat.embeddings.text import embeddable_and_hash, text_hash
from cardchat.errors import ResourceExhausted
from cardchat.generation.draft_check import check_draft, draft_claims
from cardchat.parsing.draft_requests import check_draft as parse
from cardchat.schema.accounts import CARD_SOURCES, CardSources
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, Card, CardEmbedding

pytestmark = pytest.mark.emulator

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
CARDS_OF = {
    "ann-rebase": Card(
        "Rebasing",
        "Git rebase replays your commits on top of another branch. It rewrites history, so never rebase "
        "commits that others have pulled.",
        "ann",
    ),
    "ann-python": Card("Python releases", "Python 3.12 was released in October 2023 with better errors.", "ann"),
    "ann-timeout": Card("Proxy settings", "The default proxy timeout is 30 seconds for every request.", "ann"),
    "bob-tides": Card("Tides", "The moon pulls the oceans, so there are two high tides a day.", "bob"),
    "bob-public": Card("Tides in public", "Spring tides come twice a month, at new and full moon.", "bob", "public"),
    "bob-shared": Card("Tides for Ann", "Neap tides come when the moon is at a right angle.", "bob", viewers=["ann"]),
}


@pytest.fixture
def world(db):
    embedder = get_embedder()
    batch = db.batch()
    for cid, card in CARDS_OF.items():
        batch.set(db.collection(CARDS).document(cid), card.to_dict())
        vec = embedder.embed([embeddable_and_hash(card.title, card.body)[0]])[0]
        stored = CardEmbedding(
            embedder.model_id, embedder.dim, pack(vec), text_hash(card.title, card.body), owner=card.owner
        )
        batch.set(db.collection(CARD_EMBEDDINGS).document(cid), stored.to_dict())
    batch.set(db.collection(CARD_SOURCES).document("ann"), CardSources("ann", accepted_sharers=["bob"]).to_dict())
    batch.commit()
    return db


def verdicts(db, text: str, uid: str = "ann", **query) -> dict[str, tuple[str, list[str]]]:
    req = parse({"text": text, **({"query": query} if query else {})})
    out = check_draft(db, uid, req, now=T0).to_dict()["claims"]
    return {c["text"]: (c["verdict"], [card["id"] for card in c["cards"]]) for c in out}


def test_each_claim_is_supported_conflicting_or_unsupported_by_the_callers_cards(world):
    draft = (
        "# My notes\n\n"
        "Git rebase replays your commits on top of another branch. Python 3.12 was released in October 2022. "
        "The default proxy timeout is 60 seconds for every request.\n\n"
        "- It rewrites history, so always rebase commits that others have pulled.\n"
        "- Python 3.12 was released in October 2023 with better errors [2].\n"
        "- Sourdough bread needs a starter fed with flour every day.\n\n"
        "Is that all?"
    )
    assert verdicts(world, draft) == {
        "Git rebase replays your commits on top of another branch.": ("supported", ["ann-rebase"]),
        "Python 3.12 was released in October 2022.": ("conflicting", ["ann-python"]),  # a date
        "The default proxy timeout is 60 seconds for every request.": ("conflicting", ["ann-timeout"]),  # a number
        "It rewrites history, so always rebase commits that others have pulled.": ("conflicting", ["ann-rebase"]),
        "Python 3.12 was released in October 2023 with better errors.": ("supported", ["ann-python"]),
        "Sourdough bread needs a starter fed with flour every day.": ("unsupported", []),
    }


def test_each_card_comes_with_its_title_and_the_passage_that_decided(world):
    req = parse({"text": "Git rebase does not replay your commits on top of another branch."})
    [claim] = check_draft(world, "ann", req, now=T0).to_dict()["claims"]
    assert claim["verdict"] == "conflicting"  # a negation
    assert claim["cards"] == [
        {
            "id": "ann-rebase",
            "title": "Rebasing",
            "passage": "Git rebase replays your commits on top of another branch.",
        }
    ]


def test_others_cards_count_only_when_the_caller_chose_them(world):
    draft = "There are two high tides a day because the moon pulls the oceans."
    assert verdicts(world, draft)[draft] == ("unsupported", [])  # Ann's own cards: bob-tides is not hers
    assert verdicts(world, draft, scope="mine_and_shared")[draft][0] == "unsupported"  # shared: not that one
    spring = "Spring tides come twice a month, at new and full moon."
    assert verdicts(world, spring)[spring] == ("unsupported", [])
    assert verdicts(world, spring, scope="owner", owner="bob")[spring] == ("supported", ["bob-public"])
    neap = "Neap tides come when the moon is at a right angle."
    assert verdicts(world, neap, scope="shared")[neap] == ("supported", ["bob-shared"])
    assert "bob-tides" not in str(verdicts(world, draft, scope="owner", owner="bob"))  # private: never


def test_a_draft_without_claims_has_none():
    assert draft_claims("# Title\n\nShort one. Is it true?\n\n```\ncode is not a claim at all here\n```") == []


def test_a_check_takes_a_slot_of_the_search_minute(world):
    req = parse({"text": "Git rebase replays your commits on top of another branch."})
    for i in range(2):
        check_draft(world, "ann", req, now=T0 + timedelta(seconds=i), per_minute=2)
    with pytest.raises(ResourceExhausted) as e:
        check_draft(world, "ann", req, now=T0 + timedelta(seconds=5), per_minute=2)
    assert "at most 2 a minute" in e.value.message


def test_each_claim_is_embedded_once_for_ranking_and_judging(world):
    """The offline ranker and the checks share MiniLM: the claims' vectors made to rank are the
    ones judged, so a check embeds each claim once, then only the passages it needs."""
    from cardchat.generation import citation_checks

    text = "Python 3.12 was released in October 2023. A lighthouse keeper counts the gulls at dawn."
    claims = draft_claims(text)
    embedder = get_embedder()
    seen: list[str] = []
    real = embedder.embed

    def counting(texts):
        seen.extend(texts)
        return real(texts)

    citation_checks._shared = None  # a fresh process's cache: nothing judged yet
    embedder.embed = counting
    try:
        verdicts(world, text)
    finally:
        del embedder.embed
        citation_checks._shared = None
    assert claims and all(seen.count(c) == 1 for c in claims), seen
