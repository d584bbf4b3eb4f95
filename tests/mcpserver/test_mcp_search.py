"""The MCP tool search_cards against the Firestore emulator: it ranks the
user's own cards (unless asked for others') over their retrieval index like
searchCards and reads only its hits, never the whole collection."""

from __future__ import annotations

import pytest

from cardchat.chat import card_search
from cardchat.mcpserver.search import search_cards
from cardchat.parsing.collection_query import CollectionQuery
from cardchat.repo import cards as card_repo
from cardchat.repo.retrieval_index import reader, shards
from cardchat.repo.retrieval_index.rebuild import rebuild
from cardchat.schema.accounts import CARD_SOURCES, CardSources
from cardchat.schema.documents import CARDS, Card

pytestmark = pytest.mark.emulator
A, B = "mcp-a", "mcp-b"


@pytest.fixture
def deck(db):
    """A's 40 cards (one about tides), B's private card and B's card shared with A; A's index built."""
    batch = db.batch()
    for i in range(40):
        batch.set(db.collection(CARDS).document(f"a-{i:02d}"), Card(f"Note {i}", f"Gardening tip {i}.", A).to_dict())
    tides = Card("Why the sea has tides", "The moon pulls the oceans twice a day.", A, tags=["sea"])
    batch.set(db.collection(CARDS).document("a-tides"), tides.to_dict())
    batch.set(db.collection(CARDS).document("b-secret"), Card("Moon secret", "The moon and the sea, B's.", B).to_dict())
    shared = Card("Moon phases", "The moon waxes and wanes; the sea follows.", B, viewers=[A])
    batch.set(db.collection(CARDS).document("b-shared"), shared.to_dict())
    batch.set(db.collection(CARD_SOURCES).document(A), CardSources(A, accepted_sharers=[B]).to_dict())
    batch.commit()
    reader.clear_cache()
    rebuild(db, A)
    yield
    reader.clear_cache()


def test_search_reads_the_index_and_only_its_hits(db, deck):
    card_repo.READS.clear()
    shards.reads.heads = shards.reads.shards = 0
    hits = search_cards(db, A, "the moon and the sea", 3)
    ids = [h.id for h in hits]
    assert shards.read_stats().heads == 1  # the owner's index, not a listing of the cards
    assert card_repo.READS[CARDS] <= 3 + card_search.READ_SLACK  # the hits, not 42 cards
    assert ids[0] == "a-tides" and all(i.startswith("a-") for i in ids)  # A's own cards only, by default
    assert ids == list(card_search.best_cards(db, A, "the moon and the sea", 3, CollectionQuery()).cards)
    assert all(h.score is None or -1 <= h.score <= 1 for h in hits)

    chosen = search_cards(db, A, "the moon and the sea", 3, CollectionQuery("mine_and_shared"))
    assert {h.id for h in chosen[:2]} == {"a-tides", "b-shared"} and "b-secret" not in [h.id for h in chosen]


def test_each_result_says_whose_card_it_is(db, deck):
    from cardchat.mcpserver import tools
    from cardchat.mcpserver.provenance import provenance
    from cardchat.retrieval.background import FOREIGN_NOTE

    best = search_cards(db, A, "why the sea has tides", 1)[0].to_dict()
    assert best["id"] == "a-tides" and (best["owner"], best["yours"]) == (A, True) and "foreign" not in best
    shared = tools.get_card(db, A, {"id": "b-shared"})
    assert (shared["owner"], shared["yours"], shared["foreign"], shared["note"]) == (B, False, True, FOREIGN_NOTE)
    assert provenance(Card("t", "b", B), A) == {"owner": B, "yours": False, "foreign": True, "note": FOREIGN_NOTE}


def test_someone_elses_card_comes_without_the_characters_its_reader_never_saw(db, deck):
    from cardchat.mcpserver import tools

    hidden = Card("Moon\u200b tides", "The moon\U000e0041\U000e0042 pulls\u202e <b>twice</b>.", B, viewers=[A])
    db.collection(CARDS).document("b-hidden").set(hidden.to_dict())
    theirs = tools.get_card(db, A, {"id": "b-hidden"})
    assert (theirs["title"], theirs["markdown"]) == ("Moon tides", "The moon pulls <b>twice</b>.")
    own = tools.get_card(db, B, {"id": "b-hidden"})  # the author's own text, as written
    assert (own["title"], own["markdown"]) == (hidden.title, hidden.body)
