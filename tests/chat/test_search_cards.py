"""searchCards: the Cards page's text filter on the server, through the real
Functions, Auth and Firestore emulators. A search ranks the caller's own
cards (or the collection they chose: shared with them, one owner's public
ones) within tag and visibility by the hybrid ranker, and never answers a
card the caller may not read or did not choose."""

from __future__ import annotations

import pytest
from conftest import CallError

from cardchat.chat.card_search import SNIPPET_CHARS, snippet
from cardchat.errors import InvalidArgument
from cardchat.parsing import requests
from cardchat.schema.accounts import CARD_SOURCES, CardSources
from cardchat.schema.documents import CARDS, Card

pytestmark = pytest.mark.functions

SECRET = "The quokka vault opens with the phrase marmalade-zeppelin-nine."


@pytest.fixture
def people(app_db, sign_up):
    """A owns a private quokka card, a public one and one shared with B; B owns one; C one public."""
    a_uid, a_token = sign_up()
    b_uid, b_token = sign_up()
    cards = {
        "a-secret": Card("Quokka vault", SECRET, a_uid, tags=["quokka"]),
        "a-shared": Card("Quokka habits", "Quokkas sleep by day and graze at night.", a_uid, viewers=[b_uid]),
        "a-public": Card("Quokka island", "Quokkas live on Rottnest Island.", a_uid, "public", tags=["quokka"]),
        "b-own": Card("My quokka photos", "Photos of a quokka smiling, taken in March.", b_uid, tags=["quokka"]),
        "b-bread": Card("Bread", "Sourdough rises overnight in a cool kitchen.", b_uid),
    }
    batch = app_db.batch()
    for cid, card in cards.items():
        batch.set(app_db.collection(CARDS).document(cid), card.to_dict())
    accepted = CardSources(b_uid, accepted_sharers=[a_uid])  # B accepted A's shared cards
    batch.set(app_db.collection(CARD_SOURCES).document(b_uid), accepted.to_dict())
    batch.commit()
    return {"a": (a_uid, a_token), "b": (b_uid, b_token)}


def test_a_search_finds_the_callers_own_cards_unless_told_otherwise(people, call):
    _, b_token = people["b"]
    own = call("searchCards", {"text": "quokka vault"}, b_token)
    assert own["considered"] == 2 and {c["id"] for c in own["cards"]} == {"b-own", "b-bread"}  # no stranger's

    out = call("searchCards", {"text": "quokka vault", "scope": "visible"}, b_token)  # the old name: + shared
    ids = [c["id"] for c in out["cards"]]
    assert out["considered"] == 3  # b-own, b-bread, a-shared
    assert out["matching"] == 2  # all but the bread card: a chat over this text would take them
    assert "a-secret" not in ids and set(ids) == {"b-own", "b-bread", "a-shared"}
    assert ids[0] != "b-bread"  # the one card without the word
    assert "marmalade" not in str(out)
    first = out["cards"][0]
    assert set(first) == {"id", "title", "snippet", "tags", "visibility", "owner", "score"}
    shared = next(c for c in out["cards"] if c["id"] == "a-shared")
    assert shared["owner"] == people["a"][0] and shared["visibility"] == "private"

    # the owner finds their own private card, first, with a snippet around the match
    a_out = call("searchCards", {"text": "marmalade zeppelin", "limit": 2}, people["a"][1])
    assert a_out["cards"][0]["id"] == "a-secret" and len(a_out["cards"]) == 2
    assert "marmalade-zeppelin-nine" in a_out["cards"][0]["snippet"]


def test_scope_tag_and_visibility_narrow_what_is_searched(people, call):
    _, b_token = people["b"]

    def ids(**data):
        return sorted(c["id"] for c in call("searchCards", {"text": "quokka", **data}, b_token)["cards"])

    a_uid = people["a"][0]
    assert ids() == ids(scope="mine") == ["b-bread", "b-own"]
    assert ids(scope="shared") == ["a-shared"]
    assert ids(scope="mine_and_shared") == ["a-shared", "b-bread", "b-own"]
    assert ids(scope="owner", owner=a_uid) == ["a-public"]  # A's public cards, none of A's private ones
    assert ids(scope="mine_and_shared", tag="quokka") == ["b-own"]  # not A's private one, tagged too
    assert ids(scope="owner", owner=a_uid, visibility="private") == []
    assert ids(scope="mine", visibility="public") == []


def test_a_search_is_refused_unless_signed_in_and_well_formed(people, call):
    _, b_token = people["b"]
    with pytest.raises(CallError) as e:
        call("searchCards", {"text": "quokka"})
    assert e.value.status == "UNAUTHENTICATED"
    for data, field in [
        ({}, "text"),
        ({"text": "   "}, "text"),
        ({"text": "q" * 501}, "text"),
        ({"text": "q", "limit": 51}, "limit"),
        ({"text": "q", "limit": True}, "limit"),
        ({"text": "q", "scope": "all"}, "scope"),
        ({"text": "q", "scope": "public"}, "scope"),
        ({"text": "q", "scope": "owner"}, "owner"),
        ({"text": "q", "owner": "someone"}, "owner"),
        ({"text": "q", "card_ids": ["a-secret"]}, "card_ids"),
    ]:
        with pytest.raises(CallError) as e:
            call("searchCards", data, b_token)
        assert e.value.status == "INVALID_ARGUMENT" and e.value.message.startswith(f"{field}:"), data


def test_search_parsing_defaults():
    req = requests.search_cards({"text": " tides "})
    assert (req.text, req.limit, req.query.to_dict()) == ("tides", 20, {"scope": "mine"})
    with pytest.raises(InvalidArgument, match=r"^tag: must be text"):
        requests.search_cards({"text": "t", "tag": ["a"]})


def test_the_snippet_is_short_and_around_the_best_match():
    body = "Filler words about nothing at all. " * 20 + "The quokka vault code is here. " + "More filler. " * 20
    got = snippet(body, "quokka vault")
    assert len(got) <= SNIPPET_CHARS and "quokka vault code" in got and got.startswith("…") and got.endswith("…")
    # the window holding both terms beats an earlier one holding one
    two = "vault " + "x " * 200 + "the quokka and the vault together " + "y " * 200
    assert "quokka and the vault" in snippet(two, "quokka vault")
    assert snippet("Short body.", "anything") == "Short body."
    assert snippet("a " * 300, "missing").startswith("a a") and len(snippet("a " * 300, "missing")) <= SNIPPET_CHARS
