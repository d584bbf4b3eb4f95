"""Finds measured figures in comments and docstrings: a measurement goes stale the day the code or the
machine changes, and nothing re-runs a comment. docs/performance.md is the one place for figures, each
beside the command that measures it; a comment says what the code does and why.

A figure is a number with a unit: a time (ms, s, seconds, minutes, ...), a size (KB, MiB, bytes, ...),
a percentage, a rate (`cards/s`, `writes/s`) or a ratio (`2x`, `1.5×`). Configuration and limits have
figures too ("a 120 s lease", "at most 500 files"), so a figure is refused only when the sentence it is
in says it was measured: a word of measuring (measured, took, p50, p95, p99, median, mean, average,
benchmarked, idle, faster, slower, `vs`) or an approximation right before it (about, around, roughly, nearly, ~, ≈).
A figure in such a sentence still passes when
- a bound or a period comes right before it (at most, up to, at least, under, below, over, above,
  within, no more than, every, ≤, <, ≥, >; "at most ~1 MiB" too): it states a limit or a goal
  ("measured runs stay under 2 s"), not a reading, or
- its number is the value of a constant assigned on the same line or the next one (the comment of
  `LEASE = timedelta(seconds=120)` may say "about 120 s" of it).

Where it looks: the comments and docstrings of the Python in functions/, scripts/ and benchmarks/, and
the comments of the TypeScript in web/src/. A comment's consecutive lines are read as one text, so a
sentence may wrap; a blank line ends one too. Prints path:line: sentence and exits 1 if any figure is refused.

    python3 scripts/measured_figures.py [PATH ...]   # default: those folders' tracked files
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ("functions/", "scripts/", "benchmarks/")
TYPESCRIPT = ("web/src/",)

_NUMBER = r"[+±]?\d[\d,]*(?:\.\d+)?(?:\s?[-–]\s?\d[\d,]*(?:\.\d+)?)?"
_UNIT = (
    r"(?:ns|µs|us|ms|s|secs?|seconds?|mins?|minutes?|h|hours?|days?"
    r"|B|bytes|[KMGT]i?B|k?tokens/s|%|[x×](?![\w])|times (?:faster|slower)|[a-z]+/s)"
)
FIGURE = re.compile(rf"(?<![\w.]){_NUMBER}\s?{_UNIT}(?![\w/])")
MEASURED = re.compile(
    r"\b(?:measured|took|p50|p95|p99|median|average|mean|benchmarked|idle|"
    r"faster|slower|vs\.?)(?!\w)",
    re.IGNORECASE,
)
_APPROX = re.compile(r"(?:\b(?:about|around|roughly|nearly|approximately)\s+|[~≈]\s?)$", re.IGNORECASE)
_BOUND = re.compile(
    r"(?:\b(?:at most|up to|at least|under|below|over|above|within|no more than|less than|more than|every)\s+"
    r"|[≤<≥>]\s?)(?:about\s+|[~≈]\s?)?$",
    re.IGNORECASE,
)
# A sentence ends at . ; ! or ? followed by a blank (a decimal point is not), or at a blank line; not
# at a colon, which often stands between a measuring word and its figure ("measured: N ms").
_SENTENCE = re.compile(r"(?<=[.;!?])\s+|\n\s*\n")


def number_of(figure: str) -> str:
    return re.sub(r"[^\d.]", "", re.split(r"\s?[-–]\s?(?=\d)", figure)[0].lstrip("+±"))


def refused(sentence: str, constants: set[str]) -> list[str]:
    """The figures of one sentence that it says were measured."""
    measured = MEASURED.search(sentence) is not None
    found = []
    for m in FIGURE.finditer(sentence):
        before = sentence[: m.start()]
        if _BOUND.search(before) or number_of(m.group()) in constants:
            continue
        if measured or _APPROX.search(before):
            found.append(m.group())
    return found


def constants_near(lines: list[str], first: int, last: int) -> set[str]:
    """Numbers assigned on the lines of a comment and on the line after it (1-based, inclusive)."""
    text = " ".join(lines[i - 1] for i in range(first, min(last + 1, len(lines)) + 1) if 0 < i <= len(lines))
    numbers = set()
    for assigned in re.findall(r"=\s*([^#\n]+)", text):
        numbers |= {n.replace("_", "").rstrip(".") for n in re.findall(r"\d[\d_]*(?:\.\d+)?", assigned)}
    return numbers


def hits_in(texts: list[tuple[int, int, str]], lines: list[str]) -> list[tuple[int, str]]:
    """(line, sentence) of every refused figure; texts are (first line, last line, text) of comments."""
    found = []
    for first, last, text in texts:
        constants = constants_near(lines, first, last + 1)
        offset = 0
        for sentence in _SENTENCE.split(text):
            start = text.index(sentence, offset)
            offset = start + len(sentence)
            if refused(sentence, constants):
                found.append((first + text.count("\n", 0, start), " ".join(sentence.split())))
    return found


def python_comments(text: str) -> Iterator[tuple[int, int, str]]:
    """Docstrings and other string statements, and runs of comment lines, each as one text."""
    try:
        tree = ast.parse(text)
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (SyntaxError, tokenize.TokenError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            yield node.lineno, node.end_lineno or node.lineno, node.value.value
    run: list[tuple[int, str]] = []
    for tok in tokens + [tokenize.TokenInfo(tokenize.ENDMARKER, "", (0, 0), (0, 0), "")]:
        if tok.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            continue
        # A comment after code on its line is a text of its own; a comment line joins the run above it.
        alone = tok.type == tokenize.COMMENT and not tok.line.lstrip().startswith("#")
        if tok.type == tokenize.COMMENT and not alone and (not run or run[-1][0] == tok.start[0] - 1):
            run.append((tok.start[0], tok.string.lstrip("#:").strip()))
            continue
        if run:
            yield run[0][0], run[-1][0], "\n".join(t for _, t in run)
        run = [(tok.start[0], tok.string.lstrip("#:").strip())] if tok.type == tokenize.COMMENT else []


_TS_COMMENT = re.compile(r"/\*[\s\S]*?\*/|(?<![:\w\"'`\\])//[^\n]*")


def typescript_comments(text: str) -> Iterator[tuple[int, int, str]]:
    """Block comments, and runs of // lines, each as one text."""
    run: list[tuple[int, str]] = []
    for m in _TS_COMMENT.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        body = m.group()
        if body.startswith("/*"):
            cleaned = "\n".join(re.sub(r"^\s*\*\s?", "", s) for s in body[2:-2].splitlines())
            yield line, line + body.count("\n"), cleaned
            continue
        if run and run[-1][0] != line - 1:
            yield run[0][0], run[-1][0], "\n".join(t for _, t in run)
            run = []
        run.append((line, body[2:].strip()))
    if run:
        yield run[0][0], run[-1][0], "\n".join(t for _, t in run)


def scan(paths: list[Path], root: Path = ROOT) -> list[str]:
    report = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        comments = python_comments(text) if path.suffix == ".py" else typescript_comments(text)
        name = path.relative_to(root) if path.is_relative_to(root) else path
        report += [f"{name}:{n}: {s}" for n, s in hits_in(list(comments), text.splitlines())]
    return report


def default_paths(root: Path) -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True, capture_output=True).stdout
    names = [n for n in out.decode().split("\0") if n]
    chosen = [
        n
        for n in names
        if (n.endswith(".py") and n.startswith(PYTHON)) or (n.endswith(".ts") and n.startswith(TYPESCRIPT))
    ]
    return [root / n for n in chosen if (root / n).exists()]


def main(argv: list[str]) -> int:
    report = scan([Path(a).resolve() for a in argv] or default_paths(ROOT))
    if report:
        print("\n".join(report))
        print(
            f"{len(report)} measured figure(s) in comments: move them to docs/performance.md with their command",
            file=sys.stderr,
        )
    return 1 if report else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
