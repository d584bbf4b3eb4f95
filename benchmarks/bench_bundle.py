"""The SPA's script: every chunk of a production build, raw and gzipped, then its two first screens
(signed out, signed in) against the budget. The figures and the budget are those of
scripts/bundle_budget.py, which the `bundle` suite of scripts/test runs on the test build and fails
over the budget; this section builds afresh into a temporary directory. Needs no Firestore; the db argument is ignored.

    PYTHONPATH=functions:. functions/venv/bin/python -m benchmarks.bench_bundle
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT


def _bundle_budget() -> Any:
    spec = importlib.util.spec_from_file_location("bundle_budget", ROOT / "scripts" / "bundle_budget.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bundle_budget"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def run(_db: Any = None) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="cardchat-bundle-") as out:
        subprocess.run(
            [
                "npx",
                "--no-install",
                "vite",
                "build",
                "--config",
                "web/vite.config.ts",
                "--outDir",
                out,
                "--emptyOutDir",
                "--logLevel",
                "error",
            ],
            cwd=ROOT,
            check=True,
        )
        lines, _within = _bundle_budget().report(Path(out))
    return list(lines)


if __name__ == "__main__":
    for line in run():
        print(line)
