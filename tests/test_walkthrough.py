"""docs/architecture.md's "Follow one answer" names, in order, every file and function one answer
passes through: each `path:name` it gives must exist, so the walkthrough cannot drift from the
code it describes (a rename that forgets it fails here). No emulator needed."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
SECTION = "## Follow one answer"
#: `functions/cardchat/chat/turns.py:post_message`, `web/src/chat/composer.ts:Composer.ask`
ITEM = re.compile(r"`((?:functions|web)/[\w./-]+\.(?:py|ts)):([A-Za-z_][\w.]*)`")


def section(text: str) -> str:
    """The body of the walkthrough: from its heading to the next heading of its level."""
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start : end if end >= 0 else len(text)]


def items(text: str) -> list[tuple[str, str]]:
    return ITEM.findall(section(text))


def python_names(source: str) -> set[str]:
    """Module-level functions, classes and assignments, and `Class.method` for methods."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            names |= {
                f"{node.name}.{f.name}" for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def defined_in_ts(source: str, name: str) -> bool:
    """`name` is a function, const or class of the module, or `Class.method` a method of its class."""
    *owner, last = name.split(".")
    if owner and not re.search(rf"\bclass\s+{re.escape(owner[0])}\b", source):
        return False
    declared = rf"\b(?:function|const|let|class)\s+{re.escape(last)}\b"
    method = rf"^\s*(?:(?:public|private|protected|static|async)\s+)*{re.escape(last)}\s*\("
    return bool(re.search(declared, source) or (owner and re.search(method, source, re.M)))


def missing(found: list[tuple[str, str]]) -> list[str]:
    wrong = []
    for path, name in found:
        file = ROOT / path
        if not file.is_file():
            wrong.append(f"{path}: no such file")
            continue
        source = file.read_text(encoding="utf-8")
        ok = name in python_names(source) if path.endswith(".py") else defined_in_ts(source, name)
        if not ok:
            wrong.append(f"{path}:{name}: not defined there")
    return wrong


def test_the_walkthrough_is_there_from_the_send_button_to_the_chunks_deleted():
    found = items(DOC.read_text(encoding="utf-8"))
    assert len(found) >= 20, "the walkthrough names too few steps: is the section there?"
    assert found[0][0].startswith("web/src/"), "it starts at the SPA's Send button"
    assert ("functions/cardchat/repo/messages.py", "delete_chunks") in found


def test_every_file_and_name_the_walkthrough_gives_exists():
    assert missing(items(DOC.read_text(encoding="utf-8"))) == []


def test_a_wrong_name_is_caught():
    planted = [
        ("functions/cardchat/chat/turns.py", "post_message"),
        ("functions/cardchat/chat/turns.py", "no_such_step"),
        ("web/src/chat/composer.ts", "Composer.ask"),
        ("web/src/chat/composer.ts", "Composer.noSuchMethod"),
        ("functions/cardchat/nowhere.py", "x"),
    ]
    assert missing(planted) == [
        "functions/cardchat/chat/turns.py:no_such_step: not defined there",
        "web/src/chat/composer.ts:Composer.noSuchMethod: not defined there",
        "functions/cardchat/nowhere.py: no such file",
    ]
