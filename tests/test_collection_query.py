"""The one definition of a query-described collection: scope, tag and visibility,
always within what the caller may read."""

import pytest

from cardchat.collection_query import CollectionQuery
from cardchat.schema import Card

MINE = Card(title="a", body="", owner="me", tags=["x"])
SHARED = Card(title="b", body="", owner="them", viewers=["me"])
THEIRS_PUBLIC = Card(title="c", body="", owner="them", visibility="public", tags=["x"])
THEIRS_PRIVATE = Card(title="d", body="", owner="them")
ALL = [MINE, SHARED, THEIRS_PUBLIC, THEIRS_PRIVATE]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (CollectionQuery(), [MINE, SHARED, THEIRS_PUBLIC]),
        (CollectionQuery(scope="mine"), [MINE]),
        (CollectionQuery(scope="shared"), [SHARED]),
        (CollectionQuery(scope="public"), [THEIRS_PUBLIC]),
        (CollectionQuery(tag="x"), [MINE, THEIRS_PUBLIC]),
        (CollectionQuery(visibility="private"), [MINE, SHARED]),
        (CollectionQuery(scope="mine", tag="y"), []),
    ],
)
def test_admits_only_readable_cards_in_scope(query: CollectionQuery, expected: list[Card]) -> None:
    assert [c for c in ALL if query.admits(c, "me")] == expected


def test_round_trips_and_drops_unset_fields() -> None:
    q = CollectionQuery(scope="mine", tag="x")
    assert q.to_dict() == {"scope": "mine", "tag": "x"}
    assert CollectionQuery.from_dict(q.to_dict()) == q


def test_unknown_scope_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown scope"):
        CollectionQuery(scope="everyone")
