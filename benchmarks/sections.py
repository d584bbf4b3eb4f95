"""Every benchmark section, in one table: `scripts/bench` runs them, the
bench-smoke suite (scripts/bench-smoke) runs each at its tiny size, and
docs/performance.md names the command of each (tests/test_performance_doc.py
holds the two together). Adding a benchmark is one entry here.

`python -m benchmarks.sections STACK` prints the names that run on that stack,
one a line: what the shell scripts read."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

DOC = Path(__file__).resolve().parents[1] / "docs" / "performance.md"

#: Where a section runs:
#: firestore  `python -m benchmarks NAME` on the Firestore emulator (or no emulator at all); under
#:            bench-smoke, on the test stack's own Firestore, in a project no trigger listens to
#: pipeline   Auth, Firestore and Functions of its own (each section on fresh ones; the tiny run puts them
#:            all on one, one after another), the functions' Anthropic pointed at
#:            benchmarks/fake_provider.py (the test stack's functions have no provider key, and must not)
#: functions  Firestore and Functions of its own, once per CARDCHAT_EMBED_BATCH (set when they start)
#: browser    `node benchmarks/<name>.mjs` against a running stack with the demo deck seeded
#: dev        `scripts/bench NAME` starts `scripts/dev` itself, afresh each time (its tiny run starts
#:            nothing and measures the running test stack once)
Stack = Literal["firestore", "pipeline", "functions", "browser", "dev"]


@dataclass(frozen=True)
class Section:
    name: str  # benchmarks/bench_<name>.py, or benchmarks/<name>.mjs for a browser one
    stack: Stack = "firestore"
    #: Run by `scripts/bench` with no argument (the rest take many minutes or are experiments).
    default: bool = True
    #: Environment of the tiny run beyond CARDCHAT_BENCH_TINY=1 (which the Python sections read).
    tiny_env: dict[str, str] = field(default_factory=dict)

    @property
    def command(self) -> str:
        """The command that prints this section's figures, as docs/performance.md gives it."""
        if self.stack == "browser":
            return f"node benchmarks/{self.name}.mjs"
        return f"scripts/bench {self.name}"


SECTIONS = [
    Section("cold_start"),
    Section("embeddings"),
    Section("retrieval"),
    Section("create_chat"),
    Section("streaming"),
    Section("recheck", default=False),
    Section("turn_context", default=False),
    Section("offline"),
    Section("scrub"),
    Section("bundle"),
    Section("citation_checks"),
    Section("search_cards"),
    Section("search_chats"),
    Section("card_sync", stack="pipeline", default=False),
    Section("related_cards", default=False),
    Section("overlaps", default=False),
    Section("draft_check", default=False),
    Section("index", default=False),
    Section("index_memory", default=False),
    Section("function_memory", default=False),
    Section("scope", default=False),
    Section("call_costs", default=False),
    Section("embed_rates", default=False),
    Section("concurrent_answers", default=False),
    Section("emulator_jvm", default=False),
    Section("pipeline", stack="pipeline"),
    Section("load", stack="pipeline", default=False),
    Section("sync_watch", stack="pipeline", default=False),
    Section("embed_burst", stack="functions"),
    Section("browser_ttft", stack="browser", tiny_env={"BENCH_RUNS": "1"}),
    Section("browser_import", stack="browser", tiny_env={"BENCH_FILES": "3", "BENCH_EMBED_WAIT_S": "1"}),
    Section("browser_bigcollection", stack="browser", tiny_env={"BENCH_SIZES": "5", "BENCH_RUNS": "1"}),
    Section("newcomer", stack="dev", default=False),
]
BY_NAME = {s.name: s for s in SECTIONS}


def doc_commands(text: str) -> set[str]:
    """The commands docs/performance.md gives for its figures: the last column of each row of its
    tables, in backticks, environment settings (`VAR=value ...`) left off."""
    found = set()
    for row in re.findall(r"^\|.*\|\s*$", text, re.M):
        for command in re.findall(r"`([^`]+)`", row.rstrip().rstrip("|").rsplit("|", 1)[-1]):
            found.add(" ".join(w for w in command.split() if not re.match(r"^[A-Z_]+=", w)))
    return found


def doc_drift(text: str) -> list[str]:
    """How the doc's commands differ from the sections' (nothing when they agree)."""
    doc, ours = doc_commands(text), {s.command for s in SECTIONS}
    return [f"docs/performance.md names no figure of `{c}`" for c in sorted(ours - doc)] + [
        f"docs/performance.md gives `{c}`, which is no section's command" for c in sorted(doc - ours)
    ]


def main(argv: list[str]) -> int:
    """`STACK [--default]`: the names on that stack (only the no-argument run's with --default);
    `--tiny-env NAME`: that section's tiny environment, one VAR=value a line; `--check-doc`:
    whether docs/performance.md gives exactly the sections' commands."""
    if argv[:1] == ["--check-doc"]:
        drift = doc_drift(DOC.read_text())
        print("\n".join(drift) or f"docs/performance.md: the commands of all {len(SECTIONS)} sections, no other")
        return 1 if drift else 0
    if argv[:1] == ["--tiny-env"]:
        print("\n".join(f"{k}={v}" for k, v in BY_NAME[argv[1]].tiny_env.items()))
        return 0
    stack, only_default = argv[0], "--default" in argv[1:]
    print("\n".join(s.name for s in SECTIONS if s.stack == stack and (s.default or not only_default)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
