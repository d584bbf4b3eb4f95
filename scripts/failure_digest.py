"""What failed, from the logs of the suites that failed: the lines that name the failing tests and
why, not whole logs. scripts/run-suites prints it under its summary, and .ci/run again last, so that
a CI run's tail says which test failed.

    failure_digest.py NAME=LOG [NAME=LOG ...]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

#: Lines kept per suite, and of one test's reason.
PER_SUITE = 60
PER_REASON = 25
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def tap_failures(lines: list[str]) -> list[str]:
    """node --test's TAP: each `not ok` line, then its YAML block (error, location, stack), which is
    indented deeper and ends with `...`."""
    out: list[str] = []
    for i, line in enumerate(lines):
        if not line.lstrip().startswith("not ok"):
            continue
        depth = len(line) - len(line.lstrip())
        block = []
        for more in lines[i + 1 :]:
            if len(more) - len(more.lstrip()) <= depth or more.strip() == "...":
                break
            block.append(more)
        out += [line, *block[:PER_REASON]]
    return out


def pytest_failures(lines: list[str]) -> list[str]:
    """pytest -q: the short summary's FAILED/ERROR lines, then the first `E ` lines and locations."""
    named = [line for line in lines if re.match(r"^(FAILED|ERROR)[ :]", line)]
    reasons = [line for line in lines if re.match(r"^(E  |_{3,} .* _{3,}$|[\w/]+\.py:\d+: )", line)]
    return named + reasons[: PER_SUITE - len(named)] if named or reasons else []


def digest(name: str, text: str) -> list[str]:
    lines = [ANSI.sub("", line) for line in text.splitlines()]
    if "==> what failed" in lines:  # a nested run's own digest (the stack beside)
        return [f"--- {name} ---", *lines[lines.index("==> what failed") + 1 :][:PER_SUITE]]
    found = tap_failures(lines) + pytest_failures(lines)
    found += [line for line in lines if re.search(r"\bFAILED$|: FAIL\b", line)]  # bench-smoke's verdicts
    if not found:  # a shape not known here: the log's end
        found = lines[-30:]
    return [f"--- {name} ---", *found[:PER_SUITE]]


def main(args: list[str]) -> int:
    out: list[str] = []
    for arg in args:
        name, _, path = arg.partition("=")
        log = Path(path)
        out += digest(name, log.read_text(errors="replace") if log.exists() else f"(no log at {path})")
    if out:
        print("==> what failed", *out, sep="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
