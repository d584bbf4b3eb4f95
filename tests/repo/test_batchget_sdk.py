"""batchget leans on private attributes of the SDK's Client: it is verified
on one SDK release, and without those attributes it reads through the SDK's
own get_all (same results, against the real emulator)."""

from __future__ import annotations

import logging
import re
from importlib.metadata import version
from pathlib import Path

import pytest

from cardchat.repo import batchget
from cardchat.repo.cards import load_cards
from cardchat.schema.documents import CARDS, Card

REQUIREMENTS = Path(__file__).resolve().parents[2] / "functions" / "requirements.txt"


def test_the_sdk_is_the_release_batchget_was_verified_on():
    pinned = re.search(r"^google-cloud-firestore==(\S+)", REQUIREMENTS.read_text(), re.M).group(1)
    reverify = (
        f"batchget.py was verified on google-cloud-firestore {batchget.VERIFIED_SDK}. Re-verify it on the new "
        f"release: run tests/repo/test_batchget.py and tests/repo/test_batchget_sdk.py, check that Client still has "
        f"{', '.join(batchget.PRIVATE_ATTRIBUTES)} with the same meaning, run `scripts/bench create_chat`, "
        f"then set batchget.VERIFIED_SDK"
    )
    assert pinned == batchget.VERIFIED_SDK, f"requirements.txt pins {pinned}. {reverify}"
    assert version("google-cloud-firestore") == pinned, f"installed: {version('google-cloud-firestore')}. {reverify}"


class NewerClient:
    """The SDK's Client as a release without one of its private attributes
    would look to batchget: everything else, public and private, is the real
    client's, so the SDK's own calls still work."""

    def __init__(self, real, hidden: str) -> None:
        self._real, self._hidden = real, hidden

    def __getattr__(self, name: str):
        if name == self._hidden:
            raise AttributeError(name)
        return getattr(self._real, name)


@pytest.mark.emulator
def test_the_current_sdk_takes_the_fast_path(db, caplog):
    with caplog.at_level(logging.WARNING, logger="cardchat"):
        assert batchget._missing_attributes(db) == ()
        list(batchget.batch_get(db, "batchget", ["a"]))
    assert caplog.records == []


@pytest.mark.emulator
@pytest.mark.parametrize("hidden", batchget.PRIVATE_ATTRIBUTES)
def test_without_a_private_attribute_get_all_gives_the_same_results(db, caplog, hidden):
    from test_batchget import EVERY_TYPE

    db.collection("batchget").document("all-types").set(EVERY_TYPE | {"reference": db.document("cards/c1")})
    for i in range(3):
        db.collection("batchget").document(f"d{i}").set({"title": f"T{i}", "body": "b" * i, "owner": "u"})
    for i in range(5):
        db.collection(CARDS).document(f"c{i}").set(Card(f"T{i}", f"body {i}", "u").to_dict())
    newer = NewerClient(db, hidden)
    ids = ["d2", "nope", "all-types", "d0", "d1"]

    with caplog.at_level(logging.WARNING, logger="cardchat"):
        fast, slow = dict(batchget.batch_get(db, "batchget", ids)), dict(batchget.batch_get(newer, "batchget", ids))
        masked = [dict(batchget.batch_get(c, "batchget", ids, field_paths=["title", "owner"])) for c in (db, newer)]
        cards = [load_cards(c, ["c3", "missing", "c0", "c4"]) for c in (db, newer)]

    assert slow == fast and slow["nope"] is None and slow["all-types"]["reference"].path == "cards/c1"
    assert {k: type(v) for k, v in slow["all-types"].items()} == {k: type(v) for k, v in fast["all-types"].items()}
    assert masked[1] == masked[0] and masked[1]["d2"] == {"title": "T2", "owner": "u"}
    assert cards[1] == cards[0] and list(cards[1]) == ["c3", "c0", "c4"]
    # Logged once for this lack (four reads through the slow path), naming the SDK release.
    assert [r.getMessage() for r in caplog.records if hidden in r.getMessage()] == [
        f"batchget: google-cloud-firestore {version('google-cloud-firestore')} (verified on "
        f"{batchget.VERIFIED_SDK}) has no Client.{hidden}; reading through Client.get_all instead"
    ]
