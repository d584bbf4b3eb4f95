"""The demo deck derived from Debian's git-doc sources."""

from __future__ import annotations

import json
import re
from functools import lru_cache

import pytest

from cardchat.__main__ import main
from cardchat.admin import asciidoc, demo_deck
from cardchat.admin.importer import read_json_export, validate
from cardchat.schema.documents import Card


@lru_cache(maxsize=1)
def _deck() -> tuple:
    return tuple(demo_deck.build_deck())


def test_deck_size_ids_and_shape():
    deck = _deck()
    assert len(deck) >= 200
    ids = [c["id"] for c in deck]
    assert len(set(ids)) == len(ids)
    for c in deck:
        assert re.fullmatch(r"[a-z0-9][a-z0-9-]{0,99}", c["id"]), c["id"]
        assert c["title"].strip() and len(c["body"]) <= demo_deck.MAX_BODY
    lengths = sorted(len(c["body"]) for c in deck)
    assert lengths[len(lengths) // 2] >= 600  # typical cards are substantial
    assert sum(1 for n in lengths if n < demo_deck.MIN_BODY) < len(deck) * 0.05


def test_deck_is_deterministic():
    assert demo_deck.build_deck() == list(_deck())


def test_asciidoc_becomes_markdown():
    cards = {c["id"]: c for c in _deck()}
    onto = cards["git-rebase-opt-onto-newbase"]
    assert onto["title"].startswith("git rebase options: --onto")
    assert "**`--onto <newbase>`**" in onto["body"]
    body = "\n".join(c["body"] for c in _deck())
    assert "linkgit:" not in body and "{litdd}" not in body and "<<def_" not in body
    assert "`git config`" in body and "`git branch`" in body  # from linkgit:git-…[1]
    assert "```" in cards["gitattributes-end-of-line-conversion"]["body"]


def test_callouts_become_numbers_in_code_and_a_numbered_list():
    lines = [
        "------------",
        "$ git branch -D test    <1>",
        "$ git log  <2> <3>",
        "------------",
        "<1> Delete it.",
        "<2> Show it.",
    ]
    assert asciidoc.to_markdown(lines).split("\n") == [
        "```",
        "$ git branch -D test    (1)",
        "$ git log  (2) (3)",
        "```",
        "1. Delete it.",
        "2. Show it.",
    ]
    body = "\n".join(c["body"] for c in _deck())
    assert not re.search(r"<\d+>", body)


def test_ownership_mix_and_permission_culling():
    deck = [Card.from_dict({**c, "created": None, "updated": None}) for c in _deck()]
    others = [c for c in deck if c.owner == demo_deck.OTHER_USER]
    hidden = [c for c in others if not c.visible_to(demo_deck.DEMO_USER)]
    shared = [c for c in others if c.visible_to(demo_deck.DEMO_USER)]
    assert len(hidden) == 15 and all(c.visibility == "private" for c in hidden)
    assert len(shared) == 2 and all(c.viewers == [demo_deck.DEMO_USER] for c in shared)
    mine = [c for c in deck if c.owner == demo_deck.DEMO_USER]
    assert {c.visibility for c in mine} == {"public", "private"}


def test_cli_writes_an_importable_export(tmp_path, capsys):
    out = tmp_path / "deck.json"
    assert main(["demo-deck", str(out)]) == 0
    assert f"wrote {len(_deck())} cards" in capsys.readouterr().out
    parsed = validate(read_json_export(out))
    assert len(parsed) == len(_deck())
    assert json.loads(out.read_text())["cards"][0]["created"].endswith("+00:00")


def test_missing_git_doc_names_setup(tmp_path, capsys):
    with pytest.raises(demo_deck.MissingGitDoc, match="scripts/setup"):
        demo_deck.build_deck(str(tmp_path))
    assert main(["demo-deck", str(tmp_path / "x.json"), "--doc-dir", str(tmp_path)]) == 1
    assert "scripts/setup" in capsys.readouterr().err
