"""Every benchmark is an entry of benchmarks/sections.py, and docs/performance.md
gives, for the figures it lists, exactly the commands of those sections: the
ones the bench-smoke suite runs at a tiny size."""

from __future__ import annotations

from benchmarks.sections import BY_NAME, DOC, SECTIONS, doc_commands, doc_drift


def test_every_benchmark_is_a_section() -> None:
    """A new benchmarks/bench_x.py or browser_x.mjs runs in scripts/bench and the suite only through the table."""
    folder = DOC.parents[1] / "benchmarks"
    files = {p.stem.removeprefix("bench_") for p in folder.glob("bench_*.py")}
    files |= {p.stem for p in folder.glob("browser_*.mjs")}
    assert files == set(BY_NAME)


def test_the_doc_gives_exactly_the_commands_the_suite_runs() -> None:
    assert doc_drift(DOC.read_text()) == []


def test_a_section_without_a_row_is_drift() -> None:
    text = DOC.read_text()
    dropped = SECTIONS[0].command
    rows = [line for line in text.splitlines() if f"`{dropped}`" not in line]
    assert doc_drift("\n".join(rows)) == [f"docs/performance.md names no figure of `{dropped}`"]


def test_a_command_of_no_section_is_drift() -> None:
    extra = DOC.read_text() + "\n| a figure | somewhere | `scripts/bench no_such_section` |\n"
    assert doc_drift(extra) == [
        "docs/performance.md gives `scripts/bench no_such_section`, which is no section's command"
    ]


def test_settings_before_a_command_are_not_part_of_it() -> None:
    row = "| burst | Embedding | `CARDCHAT_BENCH_BURST=300 scripts/bench embed_burst` |"
    assert doc_commands(row) == {"scripts/bench embed_burst"}
