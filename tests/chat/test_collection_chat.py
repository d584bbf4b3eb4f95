"""Chats over a collection described by a query: createChat's
`query` is parsed strictly, resolved on the server with the same culling as
ids (chat/collection.py), kept owner-only in chat_private.collection_query
and as the query (not ids) in the server-only chat_sources, which follow-ups
and branches resolve again."""

from __future__ import annotations

import itertools

import pytest

from cardchat.access.permissions import grant_ai
from cardchat.chat import branch as branches
from cardchat.chat import candidates
from cardchat.chat import create as chats
from cardchat.chat.turns import post_message
from cardchat.embeddings import get_embedder
from cardchat.errors import InvalidArgument
from cardchat.generation.engine import generate
from cardchat.parsing import requests
from cardchat.parsing.collection_query import SCOPES, CollectionQuery
from cardchat.repo import embed_batches
from cardchat.repo import messages as messages_repo
from cardchat.schema.accounts import CARD_SOURCES, CardSources
from cardchat.schema.chat_sources import CHAT_SOURCES
from cardchat.schema.documents import CARDS, CHAT_PRIVATE, Card

pytestmark = pytest.mark.emulator

ME = "me"
#: Every way a card relates to ME, with tags and visibility to filter on.
DECK = {
    "mine-sea": Card("Tides", "The moon pulls the sea twice a day.", ME, tags=["sea"]),
    "mine-open": Card("Harbour", "The harbour opens at dawn.", ME, "public", tags=["sea", "port"]),
    "mine-bread": Card("Bread", "Sourdough rises overnight.", ME, tags=["kitchen"]),
    "shared-sea": Card("Currents", "Currents follow the tides.", "them", viewers=[ME], tags=["sea"]),
    "secret-sea": Card("Vault", "Mallory's vault code is 4711.", "them", tags=["sea"]),
    "secret-shared-other": Card("Diary", "Private diary.", "them", viewers=["someone"], tags=["sea"]),
    "open-sea": Card("Spring tides", "Spring tides come with the full moon.", "them", "public", tags=["sea"]),
    "open-other": Card("Trains", "Trains leave on the hour.", "others", "public", tags=["port"]),
}


def seed(db, cards: dict[str, Card] = DECK) -> None:
    batch = db.batch()
    for cid, card in cards.items():
        batch.set(db.collection(CARDS).document(cid), card.to_dict())
    batch.set(db.collection(CARD_SOURCES).document(ME), CardSources(ME, accepted_sharers=["them"]).to_dict())
    batch.commit()


def test_a_query_is_parsed_strictly_and_never_beside_ids():
    def parse(**data):
        return requests.create_chat({"initial_message": "q", **data}, env={})

    req = parse(query={"scope": "mine", "tag": " sea ", "text": "  "})
    assert req.query == CollectionQuery("mine", "sea") and req.card_ids == [] and req.source == req.query
    assert parse(query={}).query == CollectionQuery() == CollectionQuery("mine")
    assert parse(query={"scope": "visible"}).query == CollectionQuery("mine_and_shared")  # the old default's name
    assert parse(query={"scope": "owner", "owner": "them"}).query == CollectionQuery("owner", owner="them")
    assert parse(card_ids=["a"]).source == ["a"]
    cases = [
        ({"card_ids": ["a"], "query": {}}, r"^query: give card_ids or query, not both"),
        ({}, r"^card_ids:"),
        ({"query": "all"}, r"^query: must be an object"),
        ({"query": {"scope": "everyone"}}, r"^query\.scope: must be one of mine, shared, mine_and_shared, owner"),
        ({"query": {"scope": "public"}}, r"^query\.scope: must be one of"),
        ({"query": {"scope": ["mine"]}}, r"^query\.scope: must be one of"),
        ({"query": {"scope": "owner"}}, r"^query\.owner: scope owner needs the uid"),
        ({"query": {"scope": "owner", "owner": 7}}, r"^query\.owner: scope owner needs the uid"),
        ({"query": {"scope": "owner", "owner": "a/b"}}, r"^query\.owner: is not a user id"),
        ({"query": {"scope": "owner", "owner": "u" * 129}}, r"^query\.owner: is not a user id"),
        ({"query": {"owner": "them"}}, r"^query\.owner: goes only with scope owner"),
        ({"query": {"scope": "shared", "owner": "them"}}, r"^query\.owner: goes only with scope owner"),
        ({"query": {"visibility": "secret"}}, r"^query\.visibility: must be one of"),
        ({"query": {"tag": 5}}, r"^query\.tag: must be text"),
        ({"query": {"tag": "x" * 101}}, r"^query\.tag: 101 characters is over the limit of 100"),
        ({"query": {"text": "w" * 501}}, r"^query\.text: 501 characters is over the limit of 500"),
        ({"query": {"text": "\ud800"}}, r"^query\.text: must be text"),
        ({"query": {"card_ids": ["a"]}}, r"^query\.card_ids: unknown field"),
    ]
    for data, message in cases:
        with pytest.raises(InvalidArgument, match=message):
            parse(**data)


def test_a_query_resolves_to_exactly_the_cards_it_admits_for_the_caller(db):
    seed(db)

    def resolved(source):
        if isinstance(source, CollectionQuery):
            return candidates.resolve(db, ME, query=source).ids
        return candidates.resolve(db, ME, source).ids

    for scope, tag, visibility in itertools.product(SCOPES, (None, "sea", "port"), (None, "public", "private")):
        query = CollectionQuery(scope, tag, visibility, owner="them" if scope == "owner" else None)
        expected = sorted(cid for cid, card in DECK.items() if query.admits(card, ME))
        assert sorted(resolved(query)) == expected, query
    assert sorted(resolved(CollectionQuery())) == ["mine-bread", "mine-open", "mine-sea"]  # only mine by default
    assert sorted(resolved(CollectionQuery("mine_and_shared"))) == [
        "mine-bread",
        "mine-open",
        "mine-sea",
        "shared-sea",
    ]
    assert sorted(resolved(CollectionQuery("owner", owner="them"))) == ["open-sea"]
    # a text keeps the cards holding one of its terms; never an unreadable one
    assert sorted(resolved(CollectionQuery("owner", text="moon vault", owner="them"))) == ["open-sea"]
    # ids keep the caller's order and drop what is missing or unreadable
    ids = ["open-sea", "secret-sea", "ghost", "shared-sea", "mine-sea"]
    assert resolved(ids) == ["open-sea", "shared-sea", "mine-sea"]


def new_chat(db, **data) -> str:
    req = requests.create_chat({"initial_message": "When do the tides come?", "model": "offline-extractive", **data})
    return chats.create_chat(db, ME, req).chat_id


def test_a_chat_made_from_a_query_keeps_it_owner_only_and_its_source_as_the_query(db):
    seed(db)
    chat_id = new_chat(db, query={"scope": "mine_and_shared", "tag": "sea"})
    private = db.collection(CHAT_PRIVATE).document(chat_id).get().to_dict()
    assert private["collection_query"] == {"scope": "mine_and_shared", "tag": "sea"}
    assert private["card_count_requested"] == 3 == private["cards_considered"]  # mine-sea, mine-open, shared
    assert set(private["card_ids"]) == {"mine-sea", "mine-open", "shared-sea"}
    source = db.collection(CHAT_SOURCES).document(chat_id).get().to_dict()
    assert source["collection_query"] == {"scope": "mine_and_shared", "tag": "sea"} and source["card_ids"] == []

    by_ids = new_chat(db, card_ids=["mine-sea", "secret-sea"])
    assert "collection_query" not in db.collection(CHAT_PRIVATE).document(by_ids).get().to_dict()
    source = db.collection(CHAT_SOURCES).document(by_ids).get().to_dict()
    assert source["card_ids"] == ["mine-sea"] and source["collection_query"] is None


LENS = Card(
    "The lighthouse lens",
    "The lighthouse on the headland uses a first-order Fresnel lens, ground in Paris in 1871.",
    ME,
    tags=["sea"],
)


def test_follow_ups_and_branches_rank_the_query_again_and_so_find_cards_added_since(db):
    seed(db)
    grant_ai(db, ME)
    chat_id = new_chat(db, query={"scope": "mine", "tag": "sea"})
    assert generate(db, messages_repo.chat_messages(db, chat_id)[-1][0]) == "complete"
    added_since = {"lens": LENS, "lens-elsewhere": Card(LENS.title, LENS.body, ME, tags=["kitchen"])}
    seed(db, added_since)
    for card_id, card in added_since.items():  # what embedCard does with each write: embed, then index
        embed_batches.on_card_written(db, card_id, None, card, get_embedder())

    stub = post_message(db, ME, chat_id, "What kind of lens does the lighthouse use?")
    assert generate(db, stub) == "complete"
    private = db.collection(CHAT_PRIVATE).document(chat_id).get().to_dict()
    added = [a["card"] for a in private["context_turns"][-1]["added"]]
    assert "lens" in added and "lens-elsewhere" not in added  # the query's tag still holds
    assert private["context_turns"][-1]["considered"] == 3  # mine-sea, mine-open, lens

    branch_id = branches.branch_chat(db, ME, chat_id, 2, "Which lens is in the lighthouse?")
    assert db.collection(CHAT_PRIVATE).document(branch_id).get().get("collection_query") == {
        "scope": "mine",
        "tag": "sea",
    }
    source = db.collection(CHAT_SOURCES).document(branch_id).get().to_dict()
    assert source["collection_query"] == {"scope": "mine", "tag": "sea"} and source["card_ids"] == []
