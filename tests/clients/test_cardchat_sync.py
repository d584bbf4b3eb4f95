"""cardchat-sync (clients/cardchat-sync/cardchat_sync.py), run as a user runs it, against the
Functions, Auth and Firestore emulators, over a temporary folder the test edits: what it skips,
dry runs (what they would send and delete, nothing written), changes, renames with --delete,
--watch, and how it stops on a bad token or URL."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from sync_support import written
from test_embed_burst import triggers_paused
from test_endpoints import add_cards, wait_for

from cardchat import ids
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, Card

pytestmark = pytest.mark.functions

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "cardchat-sync" / "cardchat_sync.py"


@pytest.fixture
def vault(app_db, sign_up, call, functions_base, tmp_path):
    uid, id_token = sign_up()
    token = call("createAccessToken", {"label": "sync", "scope": "write"}, id_token)["token"]
    root = tmp_path / "My Vault"
    files = {
        "notes/rebase.md": "# Rebase\nReplay commits; see [[merge]].\n",
        "merge.md": "# Merge\nJoin two branches.\n",
        "readme.txt": "Plain text notes count too.\n",
        ".obsidian/workspace.md": "# Workspace\nSkipped: a dot-folder.\n",
        "drafts/idea.md": "# Idea\nSkipped: .cardchatignore lists drafts/.\n",
        "secret.md": "# Secret\nSkipped: listed by name.\n",
        "photo.png": "not a note",
        ".cardchatignore": "# what not to sync\ndrafts/\nsecret.md\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return {"root": root, "uid": uid, "id_token": id_token, "token": token, "url": f"{functions_base}/syncCards"}


def run(vault, *extra, token=None, url=None):
    argv = [sys.executable, str(CLIENT), str(vault["root"]), "--url", url or vault["url"]]
    argv += ["--token", token or vault["token"], *extra]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300)


def cards(app_db, vault) -> dict[str, dict]:
    """The owner's synced cards, by path (source: the folder's name)."""
    paths = [
        "notes/rebase.md",
        "merge.md",
        "readme.txt",
        "joined.md",
        ".obsidian/workspace.md",
        "drafts/idea.md",
        "secret.md",
    ]
    out = {}
    for path in paths:
        snap = app_db.collection(CARDS).document(ids.synced_card_id(vault["uid"], "My-Vault", path)).get()
        if snap.exists:
            out[path] = snap.to_dict()
    return out


def test_a_folder_syncs_skips_what_it_should_and_follows_edits(app_db, vault):
    first = run(vault)
    assert first.returncode == 0, first.stderr
    synced = cards(app_db, vault)
    assert set(synced) == {"notes/rebase.md", "merge.md", "readme.txt"}
    merge_id = ids.synced_card_id(vault["uid"], "My-Vault", "merge.md")
    assert synced["notes/rebase.md"]["body"] == f"Replay commits; see [merge](/card/{merge_id})."
    assert (synced["readme.txt"]["title"], synced["merge.md"]["title"]) == ("readme", "Merge")

    (vault["root"] / "merge.md").write_text("# Merge\nJoin two branches, or fast-forward.\n")
    dry = run(vault, "--dry-run")
    assert dry.returncode == 0 and "would send merge.md" in dry.stdout
    assert cards(app_db, vault)["merge.md"]["body"] == "Join two branches."
    assert "1 updated" in run(vault).stdout
    assert cards(app_db, vault)["merge.md"]["body"] == "Join two branches, or fast-forward."

    (vault["root"] / "merge.md").rename(vault["root"] / "joined.md")
    state = written(app_db, vault["uid"])
    dry = run(vault, "--dry-run", "--delete")
    assert dry.returncode == 0 and "would send joined.md\nwould delete merge.md\n" in dry.stdout, dry.stdout
    assert written(app_db, vault["uid"]) == state
    renamed = run(vault, "--delete")
    assert renamed.returncode == 0 and "1 created" in renamed.stdout and "1 deleted" in renamed.stdout
    assert set(cards(app_db, vault)) == {"notes/rebase.md", "joined.md", "readme.txt"}
    assert run(vault).stdout.strip() == "0 created, 0 updated, 3 unchanged, 0 deleted"


def test_delete_works_for_a_folder_over_one_request(app_db, vault):
    """1,200 files: three requests of the listing, one run; only the removed files' cards go."""
    for i in range(1_200):
        (vault["root"] / "many" / f"n{i:04d}.md").parent.mkdir(exist_ok=True)
        (vault["root"] / "many" / f"n{i:04d}.md").write_text(f"Note {i}.\n")
    removed = {f"many/n{i:04d}.md" for i in (0, 499, 500, 1_199)}  # either side of a request's edge
    with triggers_paused():  # 1,200 cards to embed would hold up the triggers of the tests after this one
        assert run(vault, "--delete").returncode == 0
        for rel in removed:
            (vault["root"] / rel).unlink()
        state = written(app_db, vault["uid"])
        dry = run(vault, "--dry-run", "--delete")  # each request's answer names the files listed in others
        would = {line.removeprefix("would delete ") for line in dry.stdout.splitlines() if line.startswith("would")}
        assert would == removed, dry.stdout
        assert written(app_db, vault["uid"]) == state
        out = run(vault, "--delete")
    assert out.returncode == 0 and "0 created, 0 updated, 1199 unchanged, 4 deleted" in out.stdout, out.stdout
    col = app_db.collection(CARDS)
    every = [f"many/n{i:04d}.md" for i in range(1_200)] + ["merge.md", "notes/rebase.md", "readme.txt"]
    refs = [col.document(ids.synced_card_id(vault["uid"], "My-Vault", p)) for p in every]
    there = {snap.id for snap in app_db.get_all(refs) if snap.exists}
    assert {p for p in every if ids.synced_card_id(vault["uid"], "My-Vault", p) not in there} == removed
    # The paused writes' events are still delivered (and dropped) one at a time: once a card written
    # now is embedded, they are gone.
    add_cards(
        app_db, vault["uid"], {f"{vault['uid']}_barrier": Card("Barrier", "Written after the sync.", vault["uid"])}
    )
    wait_for(
        lambda: app_db.collection(CARD_EMBEDDINGS).document(f"{vault['uid']}_barrier").get().exists, what="barrier"
    )


def test_watch_sends_a_saved_file(app_db, vault):
    argv = [sys.executable, str(CLIENT), str(vault["root"]), "--url", vault["url"], "--token", vault["token"]]
    watching = subprocess.Popen([*argv, "--watch", "--interval", "0.2"], stdout=subprocess.PIPE, text=True)
    try:
        assert watching.stdout is not None and "created" in watching.stdout.readline()
        (vault["root"] / "merge.md").write_text("# Merge\nSaved while watched.\n")
        deadline = time.monotonic() + 180  # a bound that only turns a hang into a failure
        while cards(app_db, vault)["merge.md"]["body"] != "Saved while watched.":
            assert time.monotonic() < deadline, "the saved file never reached its card"
            time.sleep(0.5)
    finally:
        watching.terminate()
        watching.wait(timeout=30)


def test_a_bad_token_or_url_stops_with_a_clear_message(app_db, vault, call):
    unknown = run(vault, token="ccpat_" + "x" * 43)
    assert unknown.returncode == 2 and "token was refused" in unknown.stderr
    reader = call("createAccessToken", {"label": "read"}, vault["id_token"])["token"]
    read_only = run(vault, token=reader)
    assert read_only.returncode == 2 and "may not write" in read_only.stderr
    nowhere = run(vault, url="http://127.0.0.1:9/syncCards")
    assert nowhere.returncode == 2 and "cannot reach" in nowhere.stderr
    assert cards(app_db, vault) == {}
