"""findOverlaps in the domain, on the Firestore emulator with stored vectors: near-duplicates and
possibly conflicting pairs of the caller's chosen cards, no pair of unrelated cards, the limit, a
saved collection, and outdated cards left out."""

from __future__ import annotations

import pytest

from cardchat.chat.overlaps import find_overlaps
from cardchat.parsing.overlap_requests import find_overlaps as parse
from cardchat.repo.retrieval_index.rebuild import rebuild
from cardchat.repo.saved_collections import put_collection
from cardchat.schema.documents import Card
from cardchat.schema.saved_collections import SavedCollection
from engine_support import store_embedded

pytestmark = pytest.mark.emulator

SETUP = "Cardchat's functions run on Python {}; install it before the emulators."
WINDOWS = "The offline model is {}supported on Windows laptops with 8 GB of memory."
TIDES = "The moon pulls the oceans into two high tides {} day, with spring and neap tides."
DECK = {
    "setup": Card("Setting up", SETUP.format("3.11"), "u1"),
    "setup-copy": Card("Setting up", SETUP.format("3.11"), "u1"),
    "setup-new": Card("Setting up again", SETUP.format("3.12"), "u1"),
    "windows": Card("Offline model", WINDOWS.format(""), "u1"),
    "windows-no": Card("Offline model, later", WINDOWS.format("not "), "u1"),
    "tides": Card("Tides", TIDES.format("a"), "u1"),
    "tides-again": Card("Tides again", TIDES.format("each"), "u1"),
    "bread": Card("Bread", "Sourdough rises overnight in a cool kitchen when the starter is lively.", "u1"),
    "tax": Card("Tax return", "File the tax return before the end of April, with every receipt kept.", "u1"),
}


def pairs(db, uid: str = "u1", **data) -> dict[frozenset[str], tuple[str, str]]:
    out = find_overlaps(db, uid, parse(data), per_minute=1000).to_dict()
    assert all(set(p) == {"a", "b", "kind", "reason"} for p in out["pairs"])
    return {frozenset((p["a"], p["b"])): (p["kind"], p["reason"]) for p in out["pairs"]}


def test_duplicates_and_possible_conflicts_are_found_and_unrelated_cards_are_not(db):
    store_embedded(db, DECK)
    found = pairs(db)
    assert found[frozenset({"setup", "setup-copy"})] == ("duplicate", "same text")
    kind, reason = found[frozenset({"tides", "tides-again"})]
    assert kind == "duplicate" and reason.startswith("nearly the same text")
    assert found[frozenset({"setup", "setup-new"})] == ("may_conflict", "3.11 vs 3.12")
    kind, reason = found[frozenset({"windows", "windows-no"})]
    assert kind == "may_conflict" and reason.startswith("says not supported")
    assert not any({"bread", "tax"} & set(pair) for pair in found)


def test_the_limit_bounds_the_pairs_answered(db):
    store_embedded(db, DECK)
    assert len(pairs(db, limit=1)) == 1
    assert len(pairs(db, limit=200)) > 1


def test_only_the_chosen_collection_is_reviewed(db):
    tagged = {cid: Card(k.title, k.body, "u1", tags=["python"]) for cid, k in DECK.items() if cid.startswith("setup")}
    store_embedded(db, DECK | tagged)
    within = pairs(db, query={"tag": "python"})
    assert within and all(pair <= set(tagged) for pair in within)
    put_collection(db, "saved", SavedCollection("u1", "Windows", card_ids=["windows", "windows-no", "bread"]))
    assert set(pairs(db, collection_id="saved")) == {frozenset({"windows", "windows-no"})}


def test_an_outdated_card_is_in_no_pair(db):
    store_embedded(db, DECK)
    assert frozenset({"setup", "setup-new"}) in pairs(db)
    old = DECK["setup"]
    store_embedded(db, {"setup": Card(old.title, old.body, "u1", tags=["outdated"])})
    rebuild(db, "u1")  # no trigger runs here: the index learns the tag as the embedding worker would tell it
    assert not any("setup" in pair for pair in pairs(db))
