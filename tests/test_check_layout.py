"""scripts/check_layout.py: the cycle finder sees every cycle (through a package's __init__ too,
which import-linter's acyclic_siblings does not), and the root's modules are counted as files."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import grimp

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "check_layout.py"
_spec = importlib.util.spec_from_file_location("check_layout", SCRIPT)
assert _spec is not None and _spec.loader is not None
layout = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(layout)


def _graph(*imports: tuple[str, str]) -> grimp.ImportGraph:
    graph = grimp.ImportGraph()
    for importer, imported in imports:
        graph.add_import(importer=importer, imported=imported)
    return graph


def test_a_cycle_through_three_modules_and_one_through_a_package_init_are_both_found():
    graph = _graph(
        ("p.a", "p.b"),
        ("p.b", "p.c"),
        ("p.c", "p.a"),
        ("p.embed", "p.embed.minilm"),  # a package's factory importing its implementation ...
        ("p.embed.minilm", "p.embed"),  # ... which imports the package back
        ("p.top", "p.a"),  # an import into a cycle is not part of it
    )
    assert layout.cycles(graph) == [["p.a", "p.b", "p.c"], ["p.embed", "p.embed.minilm"]]


def test_imports_downwards_only_hold_no_cycle():
    assert layout.cycles(_graph(("p.a", "p.b"), ("p.b", "p.c"), ("p.a", "p.c"))) == []


def test_the_root_counts_every_python_file(tmp_path):
    for name in ("__init__.py", "__main__.py", "errors.py", "notes.txt"):
        (tmp_path / name).write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("")
    assert layout.root_modules(tmp_path) == ["__init__.py", "__main__.py", "errors.py"]


def test_the_package_as_it_is_has_no_layout_problem():
    assert layout.problems() == []
