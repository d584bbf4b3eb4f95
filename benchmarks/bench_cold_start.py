"""Cold starts: what a fresh instance pays before its first answer.

Each figure is a fresh interpreter, so module caches are cold as on a new
Cloud Functions instance (the disk cache is warm, as it is there too)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchmarks.common import sized

FUNCTIONS = Path(__file__).resolve().parents[1] / "functions"

PROBES = {
    "import main.py (every endpoint's cold start)": "import main",
    "+ first listModels answer": "import main; from cardchat.llm import models; models.available_models()",
    "+ MiniLM loaded and one embedding (createChat, embedCard)": (
        "import main; from cardchat.embeddings import get_embedder; get_embedder().embed(['hello'])"
    ),
    "+ tiktoken o200k loaded (token counting)": (
        "import main; from cardchat.llm.tokens import count_tokens; count_tokens(['hello'], 'o200k_base')"
    ),
    "+ anthropic SDK imported": "import main; import anthropic",
    "+ openai SDK imported": "import main; import openai",
    "+ google-genai SDK imported": "import main; from google import genai",
}


def _measure(code: str) -> tuple[float, float]:
    """(seconds, peak RSS MiB) of a fresh interpreter running `code`."""
    wrapper = (
        "import time, resource; t=time.perf_counter()\n"
        f"{code}\n"
        "print(time.perf_counter()-t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024)"
    )
    out = subprocess.run(
        [sys.executable, "-c", wrapper],
        cwd=FUNCTIONS,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        check=True,
    )
    seconds, rss = out.stdout.split()[-2:]
    return float(seconds), float(rss)


def run(db) -> list[str]:
    lines = []
    for label, code in PROBES.items():
        runs = sorted(_measure(code) for _ in range(sized(3, 1)))
        seconds, rss = runs[len(runs) // 2]
        lines.append(f"{label:62s} {seconds * 1000:7.0f} ms   peak RSS {rss:5.0f} MiB")
    return lines
