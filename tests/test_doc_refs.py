"""scripts/doc_refs.py, which scripts/check runs: paths, dotted names and file.py:name references in
the docs and in comments resolve to files and definitions of a small planted repository, and each
kind of breach is reported; what is not ours is left alone."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("doc_refs", ROOT / "scripts" / "doc_refs.py")
assert _spec is not None and _spec.loader is not None
doc_refs = importlib.util.module_from_spec(_spec)
sys.modules["doc_refs"] = doc_refs  # its dataclasses look their module up there
_spec.loader.exec_module(doc_refs)

FILES = {
    "functions/main.py": "from endpoints.triggers import sweepAnswers, helper\n\n__all__ = ['sweepAnswers']\n",
    "functions/endpoints/triggers.py": "def sweepAnswers(event):\n    pass\n\n\ndef helper():\n    pass\n",
    "functions/cardchat/__init__.py": "",
    "functions/cardchat/repo/__init__.py": "from .cards import read_cards\n",
    "functions/cardchat/repo/cards.py": "BATCH = 2500\n\n\ndef read_cards(db, ids):\n    pass\n",
    "functions/cardchat/chat/__init__.py": "",
    "functions/cardchat/chat/turns.py": (
        '"""Posting a turn; the sweeper is main.sweepAnswers, the store repo.cards."""\n'
        "READY_LEASE = 120\n\n\ndef is_stalled(msg, now):\n    pass\n"
    ),
    "functions/cardchat/schema/documents.py": (
        "class Base:\n    owner: str\n\n\nclass Card(Base):\n    title: str\n\n    def visible_to(self, uid):\n"
        "        pass\n"
    ),
    "web/src/chat/claims.ts": "export const x = 1;\n",
    "docs/architecture.md": "# Map\n",
    "scripts/bench": "#!/usr/bin/env bash\n",
}


def scan(tmp_path: Path, docs: str = "", code: str = "") -> list[str]:
    files = dict(FILES)
    files["docs/x.md"] = docs
    files["functions/cardchat/chat/new.py"] = code
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    repo = doc_refs.Repo.load(tmp_path, set(files))
    return [line.split(": ", 1)[1] for line in doc_refs.scan(repo, ["docs/x.md", "functions/cardchat/chat/new.py"])]


def test_paths_resolve_from_the_root_the_packages_the_spa_and_the_doc_itself(tmp_path):
    docs = (
        "`functions/cardchat/repo/cards.py`, `repo/cards.py`, `chat/turns.py`, `chat/claims.ts`, `repo/`,"
        " `architecture.md`, `turns.py`, `docs/`, `scripts/bench <name>`"
    )
    assert scan(tmp_path, docs) == []


def test_a_path_that_names_nothing_is_reported(tmp_path):
    docs = "`repo/bulk.py`, `tests/test_delete_account.py`, `engine.py`, `web/src/chat/gone.ts`"
    assert scan(tmp_path, docs) == [
        "repo/bulk.py -- no such file or folder",
        "tests/test_delete_account.py -- no such file or folder",
        "engine.py -- no tracked file has this name",
        "web/src/chat/gone.ts -- no such file or folder",
    ]


def test_dotted_names_resolve_to_definitions(tmp_path):
    docs = (
        "`turns.is_stalled`, `chat/turns.READY_LEASE`, `cardchat.chat.turns`, `repo.read_cards`,"
        " `repo.cards.BATCH`, `main.sweepAnswers`, `Card.visible_to`, `Card.owner`, `documents.Card.title`"
    )
    assert scan(tmp_path, docs) == []


def test_a_dotted_name_that_names_nothing_is_reported(tmp_path):
    docs = "`repo.bulk`, `turns.is_stale`, `Card.gone`, `main.helper`"
    assert scan(tmp_path, docs) == [
        "repo.bulk -- bulk is not defined in functions/cardchat/repo/__init__.py",
        "turns.is_stale -- is_stale is not defined in functions/cardchat/chat/turns.py",
        "Card.gone -- gone is not defined in Card",
        # main imports helper but does not export it: the reference must name where it lives.
        "main.helper -- helper is not defined in functions/main.py",
    ]


def test_file_and_name(tmp_path):
    assert scan(tmp_path, "`chat/turns.py:is_stalled`, `turns.py:READY_LEASE`, `turns.py:12`") == []
    gone = "chat/turns.py:gone -- gone is not defined in functions/cardchat/chat/turns.py"
    assert scan(tmp_path, "`chat/turns.py:gone`") == [gone]


def test_what_is_not_ours_is_left_alone(tmp_path):
    docs = (
        "`os.nice`, `hosting.headers`, `example.com`, `firebase-tools`, `chats/{id}`, `https://x.example/a.py`,"
        " `readme.md`, `~/.cursor/mcp.json`, `functions/.env`, `CARDCHAT_X=1 scripts/bench`"
    )
    assert scan(tmp_path, docs) == []


def test_comments_and_docstrings_are_read_without_backticks(tmp_path):
    code = (
        '"""Reads through repo.cards and repo.bulk (see chat/turns.py, chat/gone.py)."""\n\n\n'
        "def f(authors):\n"
        '    """Not of authors.owner: a parameter, not the module."""\n'
        "    # cards/s and and/or are prose; scripts/gone is not\n"
    )
    assert scan(tmp_path, code=code) == [
        "repo.bulk -- bulk is not defined in functions/cardchat/repo/__init__.py",
        "chat/gone.py -- no such file or folder",
        "scripts/gone -- no such file or folder",
    ]


def test_a_generated_section_is_data_and_the_lines_after_it_keep_their_numbers(tmp_path):
    docs = "<!-- T: generated by a script -->\n`repo.bulk`\n`usage.input_tokens`\n<!-- /T -->\n`repo.gone`\n"
    assert scan(tmp_path, docs) == ["repo.gone -- gone is not defined in functions/cardchat/repo/__init__.py"]
    assert doc_refs.scan(doc_refs.Repo.load(tmp_path, {*FILES, "docs/x.md"}), ["docs/x.md"])[0].startswith(
        "docs/x.md:5:"
    )
