"""Importing main (every cold start of every function) loads no model
runtime, tokenizer or provider SDK: those load inside the functions that use
them. In a fresh interpreter, so that other tests' imports cannot hide one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

FUNCTIONS = Path(__file__).resolve().parents[1] / "functions"
HEAVY = ("onnxruntime", "tokenizers", "tiktoken", "anthropic", "openai", "google.genai")
#: The MCP SDK and its bridge load only in the mcp function.
HEAVY += ("mcp", "mcp_types", "a2wsgi", "jsonschema")

_PROBE = """
import json, sys
import main
print(json.dumps(sorted(sys.modules)))
"""


def test_importing_main_loads_no_heavy_module():
    env = {**os.environ, "FUNCTIONS_EMULATOR": "true", "GCLOUD_PROJECT": "demo-cardchat"}
    run = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=FUNCTIONS, env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    loaded = json.loads(run.stdout.strip().splitlines()[-1])
    heavy = sorted(m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY))
    assert heavy == [], f"importing main loaded {heavy}: import them inside the function that needs them"
    assert "main" in loaded and "cardchat.llm.models" in loaded  # the probe really imported main
