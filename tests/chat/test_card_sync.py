"""syncCards through the Functions, Auth and Firestore emulators: a folder's files become the
owner's cards in two steps (hashes, then the texts asked for), an unchanged file costs nothing,
changes, deletions and renames land, an edit in the app is never overwritten, and every refusal
says why (chat/card_sync.py)."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from conftest import _post
from sync_support import entry, post_sync, written

from cardchat import ids
from cardchat.chat import card_sync
from cardchat.chat.card_sync import EDITED_IN_APP, NOT_DELETED
from cardchat.errors import InvalidArgument
from cardchat.parsing.sync_requests import SyncRequest
from cardchat.schema.card_syncs import CARD_SYNC_PATHS, CARD_SYNC_RUNS, CARD_SYNCS, SYNC_RUN_TTL
from cardchat.schema.documents import CARDS, now

pytestmark = pytest.mark.functions

REBASE = "---\ntitle: Rebase\ntags: [git]\n---\nRewrite history onto #main. See [[merge|merging]].\n"
MERGE = "# Merge\nJoin two branches; compare [[rebase]].\n"


@pytest.fixture
def vault(app_db, sign_up, call, functions_base):
    uid, id_token = sign_up()
    write = call("createAccessToken", {"label": "sync", "scope": "write"}, id_token)["token"]
    return {"url": f"{functions_base}/syncCards", "uid": uid, "id_token": id_token, "token": write}


def sync(vault, files, delete_missing=False, source="my-vault", token=None, run=None, dry_run=False):
    body = {"source": source, "files": files, "delete_missing": delete_missing, **({"run": run} if run else {})}
    body.update({"dry_run": True} if dry_run else {})
    status, out = post_sync(vault["url"], body, token or vault["token"])
    assert status == 200, out
    return out


def card(app_db, vault, path, source="my-vault"):
    snap = app_db.collection(CARDS).document(ids.synced_card_id(vault["uid"], source, path)).get()
    return snap if snap.exists else None


def counts(out):
    return {k: out[k] for k in ("created", "updated", "unchanged", "deleted")}


def test_a_folder_syncs_in_two_steps_and_again_costs_nothing(app_db, vault):
    listed = [entry("notes/git/rebase.md", REBASE, send=False), entry("merge.md", MERGE, send=False)]
    first = sync(vault, listed)
    assert first["need"] == ["notes/git/rebase.md", "merge.md"] and counts(first)["created"] == 0
    assert card(app_db, vault, "merge.md") is None

    sent = sync(vault, [entry("notes/git/rebase.md", REBASE), entry("merge.md", MERGE)])
    assert counts(sent) == {"created": 2, "updated": 0, "unchanged": 0, "deleted": 0} and sent["need"] == []
    rebase, merge = card(app_db, vault, "notes/git/rebase.md"), card(app_db, vault, "merge.md")
    merge_id = ids.synced_card_id(vault["uid"], "my-vault", "merge.md")
    assert (rebase.get("title"), rebase.get("tags"), rebase.get("owner")) == ("Rebase", ["git", "main"], vault["uid"])
    assert rebase.get("body") == f"Rewrite history onto #main. See [merging](/card/{merge_id})."
    assert (merge.get("title"), merge.get("visibility")) == ("Merge", "private")
    assert "](/card/" in merge.get("body")  # [[rebase]]: the bare name of a file in a folder
    record = app_db.collection(CARD_SYNCS).document(merge_id).get().to_dict()
    assert (record["owner"], record["source"], record["path"]) == (vault["uid"], "my-vault", "merge.md")

    again = sync(vault, listed)
    assert counts(again) == {"created": 0, "updated": 0, "unchanged": 2, "deleted": 0} and again["need"] == []
    assert card(app_db, vault, "merge.md").update_time == merge.update_time  # no card write


def test_changes_deletions_and_renames(app_db, vault):
    sync(vault, [entry("rebase.md", REBASE), entry("merge.md", MERGE)])
    before = card(app_db, vault, "rebase.md")
    changed = MERGE + "\nFast-forward when you can.\n"
    out = sync(vault, [entry("rebase.md", REBASE, send=False), entry("merge.md", changed)])
    assert counts(out) == {"created": 0, "updated": 1, "unchanged": 1, "deleted": 0}
    assert card(app_db, vault, "merge.md").get("body").endswith("Fast-forward when you can.")

    # merge.md renamed to joining.md: without delete_missing the old card stays
    renamed = [entry("rebase.md", REBASE, send=False), entry("joining.md", changed)]
    kept = sync(vault, renamed)
    assert counts(kept)["created"] == 1 and card(app_db, vault, "merge.md") is not None
    out = sync(vault, renamed, delete_missing=True)
    assert counts(out) == {"created": 0, "updated": 0, "unchanged": 2, "deleted": 1}
    assert card(app_db, vault, "merge.md") is None and card(app_db, vault, "joining.md") is not None
    assert (
        not app_db.collection(CARD_SYNCS)
        .document(ids.synced_card_id(vault["uid"], "my-vault", "merge.md"))
        .get()
        .exists
    )
    assert card(app_db, vault, "rebase.md").update_time == before.update_time


def test_a_dry_run_answers_what_would_change_and_writes_nothing(app_db, vault):
    sync(vault, [entry("rebase.md", REBASE), entry("merge.md", MERGE), entry("idea.md", "# Idea\nLater.\n")])
    before = written(app_db, vault["uid"])
    # merge.md changed, new.md added, rebase.md left the folder; the texts sent, as a sync's second step
    files = [entry("merge.md", MERGE + "\nFast-forward.\n"), entry("new.md", "# New\nSee [[idea]].\n")]
    files.append(entry("idea.md", "# Idea\nLater.\n", send=False))
    dry = sync(vault, files, delete_missing=True, dry_run=True)
    assert counts(dry) == {"created": 1, "updated": 1, "unchanged": 1, "deleted": 1}
    assert (dry["deletions"], dry["need"], dry["refused"]) == (["rebase.md"], [], [])
    assert written(app_db, vault["uid"]) == before
    out = sync(vault, files, delete_missing=True)
    assert counts(out) == counts(dry) and out["deletions"] == ["rebase.md"]
    assert card(app_db, vault, "rebase.md") is None and card(app_db, vault, "new.md") is not None


def test_a_run_deletes_what_none_of_its_requests_listed(app_db, vault):
    files = {f"n{i}.md": f"# Note {i}\nText {i}.\n" for i in range(5)}
    sync(vault, [entry(p, t) for p, t in files.items()])
    run = "run-0123456789"
    for part in (["n0.md", "n1.md"], ["n3.md"]):  # n2.md and n4.md left the folder
        sync(vault, [entry(p, files[p], send=False) for p in part], run=run)
    out = sync(vault, [], delete_missing=True, run=run)
    assert counts(out) == {"created": 0, "updated": 0, "unchanged": 0, "deleted": 2} and out["refused"] == []
    assert {p for p in files if card(app_db, vault, p)} == {"n0.md", "n1.md", "n3.md"}
    assert list(app_db.collection(CARD_SYNC_RUNS).stream()) == []  # an ended run leaves nothing behind
    status, again = post_sync(
        vault["url"], {"source": "my-vault", "files": [], "delete_missing": True, "run": run}, vault["token"]
    )
    assert (status, again["error"].split(":")[0]) == (400, "run")  # an ended run deletes no more


def test_a_run_of_another_owner_or_source_or_an_expired_one_deletes_nothing(app_db, vault, sign_up, call):
    sync(vault, [entry("a.md", MERGE), entry("b.md", REBASE)])
    run = "run-abcdefghij"
    sync(vault, [entry("a.md", MERGE, send=False)], run=run, source="other-vault")
    _, other_token = sign_up()
    theirs = call("createAccessToken", {"label": "x", "scope": "write"}, other_token)["token"]
    sync(vault, [entry("a.md", MERGE, send=False)], run=run, token=theirs)
    for body, token in (
        ({"source": "my-vault", "files": [], "delete_missing": True, "run": run}, vault["token"]),  # another source's
        ({"source": "my-vault", "files": [], "delete_missing": True, "run": "never-listed"}, vault["token"]),
    ):
        status, out = post_sync(vault["url"], body, token)
        assert (status, out["error"].split(":")[0]) == (400, "run"), out
    sync(vault, [entry("a.md", MERGE, send=False)], run=run)  # now a run of mine, expired a day later
    later = now() + SYNC_RUN_TTL + timedelta(minutes=1)
    with pytest.raises(InvalidArgument, match=r"^run:"):
        card_sync.sync(app_db, vault["uid"], SyncRequest("my-vault", [], True, run), when=later)
    with pytest.raises(InvalidArgument, match=r"^run:"):  # nor does it take more of the folder's listing
        card_sync.sync(app_db, vault["uid"], SyncRequest("my-vault", [], False, run), when=later)
    assert card(app_db, vault, "a.md") is not None and card(app_db, vault, "b.md") is not None


def test_a_file_sent_alone_links_to_the_files_synced_before(app_db, vault):
    folder = {"git/rebase.md": REBASE, "a/same.md": "# A\nOne.\n", "b/same.md": "# B\nTwo.\n"}
    sync(vault, [entry(p, t) for p, t in folder.items()])
    cid = {p: ids.synced_card_id(vault["uid"], "my-vault", p) for p in folder}
    for snap in app_db.collection(CARD_SYNC_PATHS).stream():  # as a source synced before it had a path index
        snap.reference.delete()
    sync(vault, [entry("links.md", "# Links\nSee [[rebase]], [[git/rebase|by path]], [[same]] and [[a/same]].\n")])
    assert card(app_db, vault, "links.md").get("body") == (
        f"See [rebase](/card/{cid['git/rebase.md']}), [by path](/card/{cid['git/rebase.md']}), "
        f"[[same]] and [a/same](/card/{cid['a/same.md']})."  # two files are named "same": neither is meant
    )
    kept = [entry(p, folder[p], send=False) for p in ("git/rebase.md", "b/same.md")]
    sync(vault, kept, delete_missing=True)  # a/same.md went: "same" names one file now
    sync(vault, [entry("again.md", "# Again\nSee [[same]].\n")])
    assert card(app_db, vault, "again.md").get("body") == f"See [same](/card/{cid['b/same.md']})."


def test_an_edit_in_the_app_wins_and_nothing_is_lost(app_db, vault):
    sync(vault, [entry("merge.md", MERGE), entry("rebase.md", REBASE)])
    ref = card(app_db, vault, "merge.md").reference
    ref.update({"body": "Edited in the app."})
    folder = MERGE + "\nChanged in the folder too.\n"
    out = sync(vault, [entry("merge.md", folder), entry("rebase.md", REBASE, send=False)])
    assert out["refused"] == [{"path": "merge.md", "reason": EDITED_IN_APP}] and counts(out)["updated"] == 0
    assert ref.get().get("body") == "Edited in the app."
    gone = sync(vault, [entry("rebase.md", REBASE, send=False)], delete_missing=True)
    assert gone["refused"] == [{"path": "merge.md", "reason": NOT_DELETED}] and ref.get().exists

    matching = "# Merge\nEdited in the app.\n"  # the file made to say what the card says
    taken = sync(vault, [entry("merge.md", matching), entry("rebase.md", REBASE, send=False)])
    assert taken["refused"] == [] and counts(taken)["unchanged"] == 2
    later = sync(vault, [entry("merge.md", matching + "\nMore.\n"), entry("rebase.md", REBASE, send=False)])
    assert counts(later)["updated"] == 1 and ref.get().get("body") == "Edited in the app.\n\nMore."


def test_an_invalid_file_is_refused_naming_the_field(app_db, vault):
    out = sync(vault, [entry("empty.md", "---\ntitle: Empty\n---\n"), entry("ok.md", MERGE)])
    assert out["refused"] == [{"path": "empty.md", "reason": "body: is missing or empty"}]
    assert counts(out)["created"] == 1 and card(app_db, vault, "empty.md") is None


def test_a_write_token_writes_only_its_owners_cards(app_db, vault, sign_up, call):
    sync(vault, [entry("merge.md", MERGE)])
    mine = card(app_db, vault, "merge.md")
    other_uid, other_id = sign_up()
    theirs = call("createAccessToken", {"label": "x", "scope": "write"}, other_id)["token"]
    out = sync(vault, [entry("merge.md", "# Merge\nOverwritten?\n")], delete_missing=True, token=theirs)
    assert counts(out)["created"] == 1
    assert card(app_db, vault, "merge.md").update_time == mine.update_time
    assert card(app_db, {"uid": other_uid}, "merge.md").get("owner") == other_uid


BAD = [
    ({"files": []}, "source"),
    ({"source": "v", "files": [], "dry_run": "yes"}, "dry_run"),
    ({"source": "v", "files": [], "dry_run": True, "run": "run-0123456789"}, "dry_run"),
    ({"source": "my vault", "files": []}, "source"),
    ({"source": "x" * 65, "files": []}, "source"),
    ({"source": "v"}, "files"),
    ({"source": "v", "files": {}}, "files"),
    ({"source": "v", "files": [], "delete_missing": "yes"}, "delete_missing"),
    ({"source": "v", "files": [], "run": "short"}, "run"),
    ({"source": "v", "files": [], "run": "has a space"}, "run"),
    ({"source": "v", "files": ["a.md"]}, "files[0]"),
    ({"source": "v", "files": [{"path": "../a.md", "sha256": "0" * 64}]}, "files[0].path"),
    ({"source": "v", "files": [{"path": "a//b.md", "sha256": "0" * 64}]}, "files[0].path"),
    ({"source": "v", "files": [{"path": "x" * 513, "sha256": "0" * 64}]}, "files[0].path"),
    ({"source": "v", "files": [{"path": "a.md", "sha256": "abc"}]}, "files[0].sha256"),
    ({"source": "v", "files": [{"path": "a.md", "sha256": "0" * 64, "markdown": 5}]}, "files[0].markdown"),
    ({"source": "v", "files": [entry("a.md", "x"), entry("a.md", "y")]}, "files[1].path"),
    ({"source": "v", "files": [entry(f"{i}.md", "x", send=False) for i in range(501)]}, "files"),
]


def test_refusals_say_why_and_write_nothing(app_db, vault, call):
    url, token = vault["url"], vault["token"]
    for body, field in BAD:
        status, out = post_sync(url, body, token)
        assert (status, out["error"].split(":")[0]) == (400, field), (body, out)
    status, out = post_sync(
        url, {"source": "v", "files": [entry(f"{i}.md", "x", send=False) for i in range(501)]}, token
    )
    assert "500" in out["error"]
    status, out = post_sync(url, None, token, raw=b"x" * (10 * 1024 * 1024 + 1))
    assert status == 413 and "10 MiB" in out["error"]
    status, out = post_sync(url, None, token, raw=b"{not json")
    assert (status, out["error"].split(":")[0]) == (400, "body")
    assert post_sync(url, None, token, method="GET")[0] == 405

    good = {"source": "v", "files": [entry("a.md", MERGE)]}
    assert post_sync(url, good, None)[0] == 401
    assert post_sync(url, good, "ccpat_" + "x" * 43)[0] == 401
    reader = call("createAccessToken", {"label": "read"}, vault["id_token"])["token"]
    status, out = post_sync(url, good, reader)
    assert status == 403 and "may only read" in out["error"]
    call("revokeAccessToken", {"token": token}, vault["id_token"])
    assert post_sync(url, good, token)[0] == 401
    assert list(app_db.collection(CARDS).stream()) == [] and list(app_db.collection(CARD_SYNCS).stream()) == []


def test_a_deleted_accounts_token_is_refused(app_db, vault, call):
    host = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
    _post(
        f"http://{host}/identitytoolkit.googleapis.com/v1/accounts:delete?key=demo-key", {"idToken": vault["id_token"]}
    )
    status, _ = post_sync(vault["url"], {"source": "v", "files": [entry("a.md", MERGE)]}, vault["token"])
    assert status == 401 and list(app_db.collection(CARDS).stream()) == []
