"""The one definition of a query-described collection: scope, owner, tag and
visibility, always within what the caller may read, and only the caller's own
cards unless they chose others'."""

import pytest

from cardchat.parsing.collection_query import CollectionQuery
from cardchat.schema.documents import Card

MINE = Card(title="a", body="", owner="me", tags=["x"])
MINE_PUBLIC = Card(title="a2", body="", owner="me", visibility="public")
SHARED = Card(title="b", body="", owner="them", viewers=["me"])
THEIRS_PUBLIC = Card(title="c", body="", owner="them", visibility="public", tags=["x"])
THEIRS_PRIVATE = Card(title="d", body="", owner="them")
STRANGERS_PUBLIC = Card(title="e", body="", owner="stranger", visibility="public", tags=["x"])
ALL = [MINE, MINE_PUBLIC, SHARED, THEIRS_PUBLIC, THEIRS_PRIVATE, STRANGERS_PUBLIC]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (CollectionQuery(), [MINE, MINE_PUBLIC]),
        (CollectionQuery(scope="mine"), [MINE, MINE_PUBLIC]),
        (CollectionQuery(scope="shared"), [SHARED]),
        (CollectionQuery(scope="mine_and_shared"), [MINE, MINE_PUBLIC, SHARED]),
        (CollectionQuery(scope="owner", owner="them"), [THEIRS_PUBLIC]),
        (CollectionQuery(scope="owner", owner="them", tag="y"), []),
        (CollectionQuery(scope="owner", owner="me"), [MINE_PUBLIC]),
        (CollectionQuery(tag="x"), [MINE]),
        (CollectionQuery(scope="mine_and_shared", visibility="private"), [MINE, SHARED]),
        (CollectionQuery(scope="mine", tag="y"), []),
    ],
)
def test_admits_only_readable_cards_in_scope(query: CollectionQuery, expected: list[Card]) -> None:
    assert [c for c in ALL if query.admits(c, "me")] == expected


def test_round_trips_and_drops_unset_fields() -> None:
    for q in (CollectionQuery(scope="mine", tag="x"), CollectionQuery(scope="owner", owner="them", text="t")):
        assert CollectionQuery.from_dict(q.to_dict()) == q
    assert CollectionQuery(scope="mine", tag="x").to_dict() == {"scope": "mine", "tag": "x"}


def test_a_stored_old_scope_reads_as_mine_and_shared_or_as_my_own_public_cards() -> None:
    assert CollectionQuery.from_dict({"scope": "visible", "tag": "x"}) == CollectionQuery("mine_and_shared", "x")
    assert CollectionQuery.from_dict({}) == CollectionQuery("mine")
    old_public = CollectionQuery.from_dict({"scope": "public", "tag": "x"})
    assert old_public == CollectionQuery("mine", "x", "public")
    assert [c for c in ALL if old_public.admits(c, "me")] == []  # MINE_PUBLIC has no tag x
    assert [c for c in ALL if CollectionQuery.from_dict({"scope": "public"}).admits(c, "me")] == [MINE_PUBLIC]


def test_unknown_scope_and_a_stray_or_missing_owner_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown scope"):
        CollectionQuery(scope="everyone")
    with pytest.raises(ValueError, match="unknown scope"):
        CollectionQuery(scope="public")
    with pytest.raises(ValueError, match="takes an owner"):
        CollectionQuery(scope="owner")
    with pytest.raises(ValueError, match="takes an owner"):
        CollectionQuery(scope="mine", owner="them")
