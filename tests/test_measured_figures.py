"""scripts/measured_figures.py, which scripts/check runs: a figure a comment says was measured is
refused, in Python comments, docstrings and TypeScript comments; limits, periods and the values of
the constants a comment describes pass."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("measured_figures", ROOT / "scripts" / "measured_figures.py")
assert _spec is not None and _spec.loader is not None
measured_figures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(measured_figures)


def refused(sentence: str, constants: frozenset[str] = frozenset()) -> list[str]:
    return measured_figures.refused(sentence, set(constants))


def test_measurements_are_refused():
    assert refused("The call took 1.1 s.") == ["1.1 s"]
    assert refused("about 650 ms at 10,000 cards") == ["650 ms"]
    assert refused("measured 17 vs 11 texts/s") == ["11 texts/s"]
    assert refused("first chunk p50 1,098 ms, idle") == ["1,098 ms"]
    assert refused("parallel streams measured 1.5-2x slower") == ["1.5-2x"]
    assert refused("far beyond a batch (~2 s)") == ["2 s"]
    assert refused("dequantised they took 154 MB") == ["154 MB"]
    assert refused("it wastes ~15 % of the budget") == ["15 %"]


def test_limits_and_configuration_pass():
    assert refused("a 120 s lease, renewed while it works") == []
    assert refused("at most 500 files a step, each under 1 MiB") == []
    assert refused("A card holds at most ~1 MiB, so one always fits.") == []
    assert refused("measured runs stay under 2 s on two cores") == []
    assert refused("the notice renewed every 30 s, measured or not") == []
    assert refused("Goal: ranking 10,000 cards warm ≤ 150 ms") == []
    assert refused("cut off at 500 s and kept") == []
    # The value of the constant the comment describes: configuration, even when approximate.
    assert refused("a lease of about 120 s", frozenset({"120"})) == []


def test_python_comments_and_docstrings_name_their_line(tmp_path):
    source = (
        '"""Reading cards.\n\nParallel streams measured 1.5x slower."""\n\n'
        "#: Ids per stream; a cap keeps each request far below 10 MiB.\n"
        "BATCH = 2500\n"
        "#: How long a claim holds (about 120 s).\n"
        "LEASE_S = 120\n"
        "# Spinning threads steal the cores:\n"
        "# measured 17 vs 11 texts/s.\n"
    )
    (tmp_path / "a.py").write_text(source, encoding="utf-8")
    assert measured_figures.scan([tmp_path / "a.py"], root=tmp_path) == [
        "a.py:3: Parallel streams measured 1.5x slower.",
        "a.py:9: Spinning threads steal the cores: measured 17 vs 11 texts/s.",
    ]


def test_typescript_comments_are_read_and_strings_are_not(tmp_path):
    source = (
        "// Picked files are read many to a Blob (5,000 notes: ~5 s\n"
        "// against ~44 s for a read each).\n"
        'const url = "https://example.com//took 3 s";\n'
        "/* A toast waits at most 5 s. */\n"
    )
    (tmp_path / "a.ts").write_text(source, encoding="utf-8")
    assert measured_figures.scan([tmp_path / "a.ts"], root=tmp_path) == [
        "a.ts:1: Picked files are read many to a Blob (5,000 notes: ~5 s against ~44 s for a read each)."
    ]
