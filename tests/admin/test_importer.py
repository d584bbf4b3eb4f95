"""The import / grant-ai CLI against the real Firestore emulator."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from cardchat.__main__ import main as cli_main
from cardchat.schema.documents import CARDS, USERS

pytestmark = pytest.mark.emulator


def main(args, project="demo-cardchat-test"):
    """The CLI on the fixture's project (conftest's `db` uses demo-cardchat-test)."""
    return cli_main(["--project", project, *args])


def _export(tmp_path, cards, name="export.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"cards": cards}))
    return str(path)


def _card(cid, **kw):
    card = {
        "id": cid,
        "title": f"Title {cid}",
        "body": f"Body of {cid}",
        "owner": "u1",
        "visibility": "private",
        "viewers": [],
        "tags": ["t"],
        "created": "2025-01-02T03:04:05Z",
        "updated": "2025-01-03T00:00:00+00:00",
    }
    card.update(kw)
    return card


def _docs(db):
    return {s.id: s.to_dict() for s in db.collection(CARDS).stream()}


def test_json_import_writes_cards_with_dates(db, tmp_path, capsys):
    assert db.project == "demo-cardchat-test"
    path = _export(tmp_path, [_card("a", viewers=["u2"]), _card("b", visibility="public")])
    assert main(["import", path]) == 0
    docs = _docs(db)
    assert set(docs) == {"u1_a", "u1_b"}  # each in its owner's namespace
    assert docs["u1_b"]["visibility"] == "public" and docs["u1_a"]["viewers"] == ["u2"]
    assert docs["u1_a"]["created"] == datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert "wrote 2 cards, 0 unchanged" in capsys.readouterr().out


def test_invalid_card_writes_nothing_and_names_file_and_field(db, tmp_path, capsys):
    path = _export(tmp_path, [_card("ok"), _card("bad", visibility="secret"), _card("c", title="")], name="mine.json")
    assert main(["import", path]) == 2
    err = capsys.readouterr().err
    assert "mine.json card #1 ('bad')" in err and "'visibility'" in err
    assert "mine.json card #2 ('c')" in err and "'title'" in err
    assert _docs(db) == {}


def test_cli_and_browser_share_one_definition_of_a_valid_card(db, tmp_path, capsys):
    """The limits of common/collections.json (card_limits), not the importer's own."""
    cards = [
        _card("long", title="t" * 301),
        _card("shared-public", visibility="public", viewers=["u2"]),
        _card("tags", tags=[f"t{i}" for i in range(51)]),
        _card("big", body="b" * 102_401),
    ]
    assert main(["import", _export(tmp_path, cards, name="limits.json")]) == 2
    err = capsys.readouterr().err
    assert "('long'): field 'title' is longer than 300 characters" in err
    assert "('shared-public'): field 'viewers' may name people only on a private card" in err
    assert "('tags'): field 'tags' has more than 50 entries" in err
    assert "('big'): field 'body' is larger than 102,400 bytes" in err
    assert _docs(db) == {}


def test_reimport_is_idempotent_and_keeps_created(db, tmp_path, capsys):
    cards = [_card("a"), _card("b")]
    path = _export(tmp_path, cards)
    assert main(["import", path]) == 0
    first = _docs(db)
    assert main(["import", path]) == 0
    assert "wrote 0 cards, 2 unchanged" in capsys.readouterr().out
    assert _docs(db) == first

    # A changed card is rewritten: created kept, updated moved; the other skipped.
    cards[0] = _card("a", body="new body", created="2030-01-01T00:00:00Z")
    assert main(["import", _export(tmp_path, cards)]) == 0
    assert "wrote 1 cards, 1 unchanged" in capsys.readouterr().out
    after = _docs(db)
    assert after["u1_a"]["body"] == "new body"
    assert after["u1_a"]["created"] == first["u1_a"]["created"]
    assert after["u1_a"]["updated"] > first["u1_a"]["updated"]
    assert after["u1_b"] == first["u1_b"]


def test_dry_run_writes_nothing(db, tmp_path, capsys):
    assert main(["import", _export(tmp_path, [_card("a")]), "--dry-run"]) == 0
    assert "would write 1 cards" in capsys.readouterr().out
    assert _docs(db) == {}


def test_markdown_folder_import(db, tmp_path):
    folder = tmp_path / "notes"
    (folder / "git").mkdir(parents=True)
    (folder / "git" / "Rebase Onto.md").write_text("# Rebase onto\n\nUse `git rebase --onto`.\n")
    (folder / "meta.md").write_text(
        "---\ntitle: Front matter title\nid: custom-id\nvisibility: public\ntags: [a, b]\n---\nBody here.\n"
    )
    (folder / "list.md").write_text("---\ntags:\n  - x\n  - y\n---\n# Listed\nText.\n")
    assert main(["import", str(folder), "--owner", "me"]) == 0
    docs = _docs(db)
    assert set(docs) == {"me_git-rebase-onto", "me_custom-id", "me_list"}
    assert docs["me_git-rebase-onto"]["title"] == "Rebase onto"
    assert docs["me_git-rebase-onto"]["body"] == "Use `git rebase --onto`."
    assert docs["me_git-rebase-onto"]["owner"] == "me" and docs["me_git-rebase-onto"]["visibility"] == "private"
    assert docs["me_custom-id"]["title"] == "Front matter title" and docs["me_custom-id"]["tags"] == ["a", "b"]
    assert docs["me_custom-id"]["visibility"] == "public"
    assert docs["me_list"]["tags"] == ["x", "y"] and docs["me_list"]["body"] == "Text."


def test_markdown_without_title_or_owner_is_refused(db, tmp_path, capsys):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "untitled.md").write_text("just text\n")
    assert main(["import", str(folder), "--owner", "me"]) == 2
    err = capsys.readouterr().err
    assert "untitled.md: field 'title'" in err
    (folder / "untitled.md").write_text("# Now titled\ntext\n")
    assert main(["import", str(folder)]) == 2
    assert "untitled.md: field 'owner'" in capsys.readouterr().err
    assert _docs(db) == {}


def test_more_than_one_batch(db, tmp_path):
    cards = [_card(f"c{i:04d}") for i in range(620)]
    assert main(["import", _export(tmp_path, cards)]) == 0
    assert len(_docs(db)) == 620


def test_an_import_never_takes_over_another_owners_card(db, tmp_path, capsys):
    """Ids go into the importer's namespace: another owner's ids, namespaced or
    from before namespaces, are never written; a card of the owner's from
    before namespaces is updated under its id."""
    db.collection(CARDS).document("legacy").set(
        {**_card("legacy"), "created": datetime(2025, 1, 2, tzinfo=UTC), "updated": datetime(2025, 1, 3, tzinfo=UTC)}
    )
    assert main(["import", _export(tmp_path, [_card("a")], name="first.json")]) == 0
    before = _docs(db)
    assert set(before) == {"u1_a", "legacy"}
    theirs = [_card(c, owner="u2", body="B's text") for c in ("a", "u1_a", "legacy")]
    assert main(["import", _export(tmp_path, theirs, name="theirs.json")]) == 0
    docs = _docs(db)
    assert {cid: docs[cid] for cid in before} == before
    assert {cid for cid, d in docs.items() if d["owner"] == "u2"} == {"u2_a", "u2_u1_a", "u2_legacy"}

    assert main(["import", _export(tmp_path, [_card("legacy", body="new")]), "--owner", "u1"]) == 0
    assert _docs(db)["legacy"]["body"] == "new" and "u1_legacy" not in _docs(db)


def test_a_card_in_the_importers_namespace_owned_by_another_is_refused(db, tmp_path, capsys):
    """Only a server write could put it there; the import still refuses it whole, before any write."""
    db.collection(CARDS).document("u2_a").set(
        {**_card("u2_a"), "created": datetime(2025, 1, 2, tzinfo=UTC), "updated": datetime(2025, 1, 3, tzinfo=UTC)}
    )
    before = _docs(db)
    cards = [{k: v for k, v in _card(c, body="B's text").items() if k != "owner"} for c in ("b", "a")]
    for dry in ([], ["--dry-run"]):
        assert main(["import", _export(tmp_path, cards, name="takeover.json"), "--owner", "u2", *dry]) == 2
        err = capsys.readouterr().err
        assert "takeover.json card #1 ('a')" in err
        assert "card id 'u2_a' already belongs to 'u1', not 'u2'" in err and "'u2_b'" not in err
        assert _docs(db) == before


def test_ids_that_meet_in_a_namespace_are_named(db, tmp_path, capsys):
    assert main(["import", _export(tmp_path, [_card("a"), _card("u1_a")], name="twice.json")]) == 2
    assert "card id 'u1_a' is the same card as twice.json card #0" in capsys.readouterr().err
    assert _docs(db) == {}


def test_cli_owner_wins_over_the_file(db, tmp_path, capsys):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "theirs.md").write_text("---\nowner: alice\nviewers: [mallory]\n---\n# Theirs\ntext\n")
    (folder / "mine.md").write_text("---\nowner: bob\nviewers: [carol]\n---\n# Mine\ntext\n")
    (folder / "plain.md").write_text("# Plain\ntext\n")
    assert main(["import", str(folder), "--owner", "bob"]) == 2
    err = capsys.readouterr().err
    assert "theirs.md: field 'owner' says 'alice' but --owner is 'bob'" in err
    assert "mine.md" not in err and "plain.md" not in err
    assert _docs(db) == {}

    (folder / "theirs.md").unlink()
    assert main(["import", str(folder), "--owner", "bob"]) == 0
    docs = _docs(db)
    assert {cid: (d["owner"], d["viewers"]) for cid, d in docs.items()} == {
        "bob_mine": ("bob", ["carol"]),
        "bob_plain": ("bob", []),
    }


def test_a_card_written_by_someone_else_after_the_read_is_not_overwritten(db):
    """The race the up-front check cannot see: between read and write another
    writer creates one card and changes another. Each batch's preconditions
    refuse it, and neither card is overwritten."""
    from cardchat.repo import card_writes
    from cardchat.schema.documents import Card

    cards = db.collection(CARDS)
    cards.document("mine").set(Card("Mine", "old", "u2").to_dict())
    cards.document("kept").set(Card("Kept", "old", "u2").to_dict())
    stored = card_writes.read_cards(db, ["mine", "kept", "new", "later"])
    assert set(stored) == {"mine", "kept"} and stored["mine"].card.owner == "u2"
    read_times = {cid: s.update_time for cid, s in stored.items()}

    cards.document("new").set(Card("Theirs", "u1's text", "u1").to_dict())  # created meanwhile
    with pytest.raises(card_writes.CardsChanged) as refused:
        card_writes.write_cards(
            db, [("kept", Card("Kept", "v2", "u2")), ("new", Card("New", "u2's text", "u2"))], read_times
        )
    assert refused.value.ids == ["new"] and refused.value.written == 0
    assert _docs(db)["new"]["owner"] == "u1" and _docs(db)["kept"]["body"] == "old"  # the batch wrote nothing

    cards.document("mine").set(Card("Mine", "given away", "u1").to_dict())  # changed meanwhile
    with pytest.raises(card_writes.CardsChanged) as refused:
        card_writes.write_cards(db, [("mine", Card("Mine", "new", "u2"))], read_times)
    assert refused.value.ids == ["mine"]
    assert _docs(db)["mine"]["owner"] == "u1"

    # Unchanged since the read: written, the stored card replaced whole.
    card_writes.write_cards(
        db, [("kept", Card("Kept", "v2", "u2", tags=["t"])), ("later", Card("L", "b", "u2"))], read_times
    )
    docs = _docs(db)
    assert (
        docs["kept"]
        == Card(
            "Kept", "v2", "u2", tags=["t"], created=docs["kept"]["created"], updated=docs["kept"]["updated"]
        ).to_dict()
    )
    assert docs["later"]["owner"] == "u2"


def test_cards_near_the_size_limit_are_written_in_batches_that_fit(db, tmp_path, capsys):
    """Fifty cards of ~100 KB (a card's limit): one commit of them all would be
    over the emulator's 4 MiB request limit (Firestore's is 10 MiB)."""
    cards = [_card(f"big{i}", body=f"{i:02d} " + "x" * 102_000) for i in range(50)]
    assert main(["import", _export(tmp_path, cards)]) == 0
    assert "wrote 50 cards" in capsys.readouterr().out
    assert {cid: len(d["body"]) for cid, d in _docs(db).items()} == {f"u1_big{i}": 102_003 for i in range(50)}


def test_grant_ai_writes_user_doc(db):
    assert main(["grant-ai", "alice"]) == 0
    assert db.collection(USERS).document("alice").get().to_dict() == {"may_use_ai": True, "admin": False}
    assert main(["grant-ai", "alice", "--admin"]) == 0
    assert db.collection(USERS).document("alice").get().to_dict() == {"may_use_ai": True, "admin": True}
    assert main(["grant-ai", "alice", "--revoke"]) == 0
    assert db.collection(USERS).document("alice").get().to_dict() == {"may_use_ai": False, "admin": True}
    assert main(["grant-ai", "alice", "--revoke", "--admin"]) == 0
    assert db.collection(USERS).document("alice").get().to_dict() == {"may_use_ai": False, "admin": False}


def test_backfill_embeds_missing_and_stale_only(db, tmp_path, capsys):
    from cardchat.embeddings.text import text_hash
    from cardchat.repo.embeddings import clear_cache
    from cardchat.schema.documents import CARD_EMBEDDINGS

    clear_cache()  # the process cache must not vouch for vectors of an emptied database
    cards = [
        _card("a", body="Rebasing moves commits onto a new base."),
        _card("b", body="The reflog records where HEAD has been."),
        _card("c", body="Stash shelves work in progress."),
    ]
    assert main(["import", _export(tmp_path, cards)]) == 0
    assert main(["backfill", "--model", "minilm"]) == 0
    assert "embedded 3 cards (0 already fresh)" in capsys.readouterr().out
    stored = {s.id: s.to_dict() for s in db.collection(CARD_EMBEDDINGS).stream()}
    assert set(stored) == {"u1_a", "u1_b", "u1_c"}
    assert stored["u1_a"]["text_hash"] == text_hash("Title a", cards[0]["body"])
    assert stored["u1_a"]["model"] == "all-MiniLM-L6-v2-int8" and len(stored["u1_a"]["vector"]) == 384 * 4

    assert main(["backfill"]) == 0
    assert "embedded 0 cards (3 already fresh)" in capsys.readouterr().out

    cards[1]["body"] = "The reflog records every move of a branch tip."
    cards[2]["body"] = "git stash pop restores shelved work."
    assert main(["import", _export(tmp_path, cards)]) == 0
    assert main(["backfill", "--limit", "1"]) == 0
    assert "embedded 1 cards (1 already fresh)" in capsys.readouterr().out
    assert main(["backfill"]) == 0
    assert "embedded 1 cards (2 already fresh)" in capsys.readouterr().out
    stored = {s.id: s.to_dict() for s in db.collection(CARD_EMBEDDINGS).stream()}
    assert stored["u1_c"]["text_hash"] == text_hash("Title c", cards[2]["body"])


def test_project_flag_after_the_subcommand(db):
    assert cli_main(["grant-ai", "bob", "--project", db.project]) == 0
    assert db.collection(USERS).document("bob").get().to_dict()["may_use_ai"] is True
