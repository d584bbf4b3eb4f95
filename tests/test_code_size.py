"""CI guard: no function over 60 lines and no module over 400 lines in the functions code.

Long functions hide the steps of an orchestrator; short ones name them.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 400


def _sources(root: Path) -> list[Path]:
    files = [root / "functions" / "main.py"]
    for folder in (root / "functions" / "cardchat", root / "functions" / "endpoints", root / "benchmarks"):
        files += sorted(folder.rglob("*.py"))
    return files


def oversized(root: Path = ROOT) -> list[str]:
    found = []
    for path in _sources(root):
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(root)
        if (n := len(text.splitlines())) > MAX_MODULE_LINES:
            found.append(f"{name}: module of {n} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                # Decorators count: they are part of what a reader has to take in.
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                if (n := node.end_lineno - start + 1) > MAX_FUNCTION_LINES:
                    found.append(f"{name}:{node.lineno} {node.name}: {n} lines")
    return found


def test_no_function_over_60_lines_and_no_module_over_400():
    assert oversized() == []


def test_the_checker_sees_a_long_function(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "functions" / "cardchat").mkdir(parents=True)
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "functions" / "main.py").write_text(f"def long():\n{body}\n")
    assert oversized(tmp_path) == ["functions/main.py:1 long: 61 lines"]
