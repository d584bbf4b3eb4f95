"""scripts/tracker_refs.py, which scripts/check runs: the words that name the project's tracker
with a number are found, wherever a comment wraps; other projects' bug numbers are left alone.
The sample texts are assembled so that this file itself holds no reference."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("tracker_refs", ROOT / "scripts" / "tracker_refs.py")
assert _spec is not None and _spec.loader is not None
tracker_refs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tracker_refs)

WORD = "iss" + "ue"


def lines_hit(text: str) -> list[int]:
    return [n for n, _ in tracker_refs.hits_in(text)]


def test_a_reference_is_found_in_any_spelling():
    assert lines_hit(f"ok\n# as {WORD} 21 says\n") == [2]
    assert lines_hit(f"see {WORD.capitalize()} #7") == [1]
    assert lines_hit(f"({WORD}s 13-21)") == [1]
    assert lines_hit(f"// the cards view ({WORD}21)") == [1]


def test_a_reference_wrapped_over_two_comment_lines_is_found():
    assert lines_hit(f"# paged, as {WORD}\n# 21 asked\n") == [1]
    assert lines_hit(f" * since {WORD} #\n * 14\n") == [1]


def test_other_projects_numbers_and_plain_words_are_not_references():
    text = (
        "Onyx #1543 drops the header\n"
        f"https://github.com/firebase/firebase-tools/{WORD}s/6000\n"
        f"an {WORD} with the emulator\n"
        "2 cards\n"
        f"tissue 5 and {WORD}d 3 times\n"
    )
    assert lines_hit(text) == []


def test_the_scan_names_file_and_line(tmp_path):
    (tmp_path / "a.py").write_text(f'"""x"""\n# see {WORD} 3\n', encoding="utf-8")
    (tmp_path / "b.bin").write_bytes(b"\xff\xfe\x00 " + WORD.encode() + b" 4")
    assert tracker_refs.scan([tmp_path / "a.py", tmp_path / "b.bin"], root=tmp_path) == [f"a.py:2: # see {WORD} 3"]
