"""The import / grant-ai CLI against the real Firestore emulator."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from cardchat.__main__ import main as cli_main
from cardchat.schema import CARDS, USERS

pytestmark = pytest.mark.emulator


def main(args, project="demo-cardchat-test"):
    """The CLI on the fixture's project (conftest's `db` uses demo-cardchat-test)."""
    return cli_main(["--project", project, *args])


def _export(tmp_path, cards, name="export.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"cards": cards}))
    return str(path)


def _card(cid, **kw):
    card = {"id": cid, "title": f"Title {cid}", "body": f"Body of {cid}", "owner": "u1",
            "visibility": "private", "viewers": [], "tags": ["t"],
            "created": "2025-01-02T03:04:05Z", "updated": "2025-01-03T00:00:00+00:00"}
    card.update(kw)
    return card


def _docs(db):
    return {s.id: s.to_dict() for s in db.collection(CARDS).stream()}


def test_json_import_writes_cards_with_dates(db, tmp_path, capsys):
    assert db.project == "demo-cardchat-test"
    path = _export(tmp_path, [_card("a"), _card("b", visibility="public", viewers=["u2"])])
    assert main(["import", path]) == 0
    docs = _docs(db)
    assert set(docs) == {"a", "b"}
    assert docs["b"]["visibility"] == "public" and docs["b"]["viewers"] == ["u2"]
    assert docs["a"]["created"] == datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    assert "wrote 2 cards, 0 unchanged" in capsys.readouterr().out


def test_invalid_card_writes_nothing_and_names_file_and_field(db, tmp_path, capsys):
    path = _export(tmp_path, [_card("ok"), _card("bad", visibility="secret"), _card("c", title="")],
                   name="mine.json")
    assert main(["import", path]) == 2
    err = capsys.readouterr().err
    assert "mine.json card #1 ('bad')" in err and "'visibility'" in err
    assert "mine.json card #2 ('c')" in err and "'title'" in err
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
    assert after["a"]["body"] == "new body"
    assert after["a"]["created"] == first["a"]["created"]
    assert after["a"]["updated"] > first["a"]["updated"]
    assert after["b"] == first["b"]


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
    assert set(docs) == {"git-rebase-onto", "custom-id", "list"}
    assert docs["git-rebase-onto"]["title"] == "Rebase onto"
    assert docs["git-rebase-onto"]["body"] == "Use `git rebase --onto`."
    assert docs["git-rebase-onto"]["owner"] == "me" and docs["git-rebase-onto"]["visibility"] == "private"
    assert docs["custom-id"]["title"] == "Front matter title" and docs["custom-id"]["tags"] == ["a", "b"]
    assert docs["custom-id"]["visibility"] == "public"
    assert docs["list"]["tags"] == ["x", "y"] and docs["list"]["body"] == "Text."


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
    from cardchat.repo.embeddings import clear_cache
    from cardchat.schema import CARD_EMBEDDINGS
    from cardchat.text import text_hash

    clear_cache()  # the process cache must not vouch for vectors of an emptied database
    cards = [_card("a", body="Rebasing moves commits onto a new base."),
             _card("b", body="The reflog records where HEAD has been."),
             _card("c", body="Stash shelves work in progress.")]
    assert main(["import", _export(tmp_path, cards)]) == 0
    assert main(["backfill", "--model", "minilm"]) == 0
    assert "embedded 3 cards (0 already fresh)" in capsys.readouterr().out
    stored = {s.id: s.to_dict() for s in db.collection(CARD_EMBEDDINGS).stream()}
    assert set(stored) == {"a", "b", "c"}
    assert stored["a"]["text_hash"] == text_hash("Title a", cards[0]["body"])
    assert stored["a"]["model"] == "all-MiniLM-L6-v2-int8" and len(stored["a"]["vector"]) == 384 * 4

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
    assert stored["c"]["text_hash"] == text_hash("Title c", cards[2]["body"])


def test_project_flag_after_the_subcommand(db):
    assert cli_main(["grant-ai", "bob", "--project", db.project]) == 0
    assert db.collection(USERS).document("bob").get().to_dict()["may_use_ai"] is True
