"""scripts/bundle_budget.py, which the `bundle` suite of scripts/test runs on the SPA it builds: a
first screen's script is its entry points' chunks and, transitively, their static imports (never a
dynamic one), and a build whose first screen passes the budget fails the suite."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("bundle_budget", ROOT / "scripts" / "bundle_budget.py")
assert _spec is not None and _spec.loader is not None
bundle_budget = importlib.util.module_from_spec(_spec)
# Registered before it runs: its dataclasses look their module up there.
sys.modules["bundle_budget"] = bundle_budget
_spec.loader.exec_module(bundle_budget)

CARDS, PROFILE = "src/cards/cards.ts", "src/data/profile.ts"


def plant(dist: Path, sizes: dict[str, int], manifest: dict[str, dict]) -> Path:
    """A build: each chunk of incompressible bytes (its gzipped size is about its size), and its manifest."""
    (dist / "assets").mkdir(parents=True)
    (dist / ".vite").mkdir()
    for name, size in sizes.items():
        (dist / "assets" / name).write_bytes(os.urandom(size))
    (dist / ".vite" / "manifest.json").write_text(json.dumps(manifest))
    return dist


def build(dist: Path, *, entry: int, firestore: int, chat: int) -> Path:
    """The shape of the SPA's build: the entry, the Cards page and the profile check sharing the
    Firestore chunk statically, the chat page imported dynamically."""
    return plant(
        dist,
        {"index.js": entry, "db.js": firestore, "cards.js": 1000, "profile.js": 500, "chat.js": chat},
        {
            "index.html": {
                "file": "assets/index.js",
                "isEntry": True,
                "dynamicImports": [CARDS, PROFILE, "src/chat/chat.ts"],
            },
            "_db.js": {"file": "assets/db.js", "imports": ["index.html"]},
            CARDS: {"file": "assets/cards.js", "imports": ["index.html", "_db.js"]},
            PROFILE: {"file": "assets/profile.js", "imports": ["_db.js", "index.html"]},
            "src/chat/chat.ts": {"file": "assets/chat.js", "imports": ["_db.js"]},
        },
    )


def test_a_screen_counts_its_static_imports_once_and_no_dynamic_import(tmp_path: Path) -> None:
    dist = build(tmp_path, entry=40_000, firestore=70_000, chat=200_000)
    signin, cards = bundle_budget.screens(dist)
    assert [c.file for c in signin.chunks] == ["assets/index.js"]
    assert [c.file for c in cards.chunks] == ["assets/index.js", "assets/cards.js", "assets/profile.js", "assets/db.js"]
    assert 110 < cards.gzipped_kb < 113


def test_a_build_within_the_budget_passes(tmp_path: Path, capsys) -> None:
    dist = build(tmp_path, entry=40_000, firestore=70_000, chat=200_000)
    assert bundle_budget.main([str(dist)]) == 0
    assert "bundle: within the budget" in capsys.readouterr().out


def test_a_first_screen_over_the_budget_fails(tmp_path: Path, capsys) -> None:
    dist = build(tmp_path, entry=40_000, firestore=120_000, chat=1000)
    assert bundle_budget.main([str(dist)]) == 1
    out = capsys.readouterr().out
    assert "first screen sign-in (signed out): 1 chunks, gzipped 40.0 KB (within" in out
    assert "first screen Cards (signed in): 4 chunks" in out and "(OVER the 150 KB budget)" in out
    assert "bundle: OVER the budget" in out


def test_a_first_screen_module_that_moved_fails_rather_than_counting_nothing(tmp_path: Path) -> None:
    dist = plant(tmp_path, {"index.js": 100}, {"index.html": {"file": "assets/index.js", "isEntry": True}})
    try:
        bundle_budget.screens(dist)
    except SystemExit as e:
        assert CARDS in str(e)
    else:
        raise AssertionError("a missing first-screen module was not reported")
