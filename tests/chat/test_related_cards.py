"""relatedCards: the card page's Related cards, through the real Functions, Auth
and Firestore emulators. The open card is the query of searchCards' hybrid
ranker over the collection the reader chose (their own cards by default): the
nearest come first, the card itself never, nor any card the reader may not read
or did not choose; a card the reader may not read is NOT_FOUND, like a missing one."""

from __future__ import annotations

import pytest
from conftest import CallError

from cardchat.errors import InvalidArgument
from cardchat.parsing.related_requests import RELATED_LIMIT_DEFAULT, related_cards
from cardchat.schema.accounts import CARD_SOURCES, CardSources
from cardchat.schema.documents import CARDS, Card

pytestmark = pytest.mark.functions


@pytest.fixture
def people(app_db, sign_up):
    """B owns three sourdough cards, one on tides and one on tax; A owns a private sourdough card,
    one shared with B and a public one."""
    a_uid, a_token = sign_up()
    b_uid, b_token = sign_up()
    cards = {
        "b-starter": Card("Sourdough starter", "Feed the sourdough starter flour and water every day.", b_uid),
        "b-bake": Card("Baking sourdough", "Bake the sourdough loaf once the starter has risen the dough.", b_uid),
        "b-proof": Card("Proofing dough", "Proof sourdough dough overnight in a cool kitchen.", b_uid),
        "b-tides": Card("Tides", "The moon pulls the oceans: two high tides a day.", b_uid),
        "b-tax": Card("Tax return", "File the tax return before the end of April.", b_uid),
        "a-secret": Card("Sourdough secret", "My sourdough starter is fed with rye flour.", a_uid),
        "a-shared": Card("Sourdough for B", "Sourdough starter notes shared with B.", a_uid, viewers=[b_uid]),
        "a-public": Card("Sourdough in public", "Everyone may read about this sourdough starter.", a_uid, "public"),
    }
    batch = app_db.batch()
    for cid, card in cards.items():
        batch.set(app_db.collection(CARDS).document(cid), card.to_dict())
    accepted = CardSources(b_uid, accepted_sharers=[a_uid])  # B accepted A's shared cards
    batch.set(app_db.collection(CARD_SOURCES).document(b_uid), accepted.to_dict())
    batch.commit()
    return {"a": (a_uid, a_token), "b": (b_uid, b_token)}


def test_the_nearest_of_the_readers_own_cards_come_first_and_never_the_card_itself(people, call):
    _, b_token = people["b"]
    out = call("relatedCards", {"card_id": "b-starter"}, b_token)
    ids = [c["id"] for c in out["cards"]]
    assert "b-starter" not in ids
    assert set(ids[:2]) == {"b-bake", "b-proof"}  # the two other sourdough cards lead
    assert not {"a-secret", "a-shared", "a-public"} & set(ids)  # others' cards only when chosen
    first = out["cards"][0]
    assert set(first) == {"id", "title", "snippet", "tags", "visibility", "owner", "score"}
    assert first["owner"] == people["b"][0] and first["score"] > 0
    assert [c["id"] for c in call("relatedCards", {"card_id": "b-starter", "limit": 1}, b_token)["cards"]] == ids[:1]


def test_others_cards_come_only_within_the_scope_the_reader_chose(people, call):
    _, b_token = people["b"]
    shared = call("relatedCards", {"card_id": "b-starter", "scope": "mine_and_shared"}, b_token)
    ids = {c["id"] for c in shared["cards"]}
    assert "a-shared" in ids and "a-secret" not in ids and "a-public" not in ids
    assert "rye" not in str(shared)  # nothing of the private card, not even a snippet

    # A card shared with B, or public, has related cards among B's own
    for card_id in ("a-shared", "a-public"):
        ids = [c["id"] for c in call("relatedCards", {"card_id": card_id}, b_token)["cards"]]
        assert ids and card_id not in ids and all(i.startswith("b-") for i in ids)


def test_a_card_the_reader_may_not_read_is_not_found_like_a_missing_one(people, call):
    _, b_token = people["b"]
    answers = []
    for card_id in ("a-secret", "no-such-card"):
        with pytest.raises(CallError) as e:
            call("relatedCards", {"card_id": card_id}, b_token)
        answers.append((e.value.status, e.value.message))
    assert answers[0] == answers[1] and answers[0][0] == "NOT_FOUND"
    assert call("relatedCards", {"card_id": "a-secret"}, people["a"][1])["cards"]  # its owner reads it


def test_related_cards_are_refused_unless_signed_in_and_well_formed(people, call):
    _, b_token = people["b"]
    with pytest.raises(CallError) as e:
        call("relatedCards", {"card_id": "b-starter"})
    assert e.value.status == "UNAUTHENTICATED"
    for data, field in [
        ({}, "card_id"),
        ({"card_id": "a/b"}, "card_id"),
        ({"card_id": "b-starter", "limit": 21}, "limit"),
        ({"card_id": "b-starter", "limit": True}, "limit"),
        ({"card_id": "b-starter", "scope": "public"}, "scope"),
        ({"card_id": "b-starter", "text": "x"}, "text"),
    ]:
        with pytest.raises(CallError) as e:
            call("relatedCards", data, b_token)
        assert e.value.status == "INVALID_ARGUMENT" and e.value.message.startswith(f"{field}:"), data


def test_related_parsing_defaults():
    req = related_cards({"card_id": "c1"})
    assert (req.card_id, req.limit, req.query.to_dict()) == ("c1", RELATED_LIMIT_DEFAULT, {"scope": "mine"})
    with pytest.raises(InvalidArgument, match=r"^limit:"):
        related_cards({"card_id": "c1", "limit": 0})
