"""Every function that can reach a provider binds the API keys as secrets.

In production a function sees a key only if it declares it, so a function
that reaches a model or a remote embedder without declaring the key fails
there and nowhere else (locally every key is in the environment). These
tests read the metadata firebase_functions attaches to each declared function
for the deploy, in a fresh interpreter per environment, and hold it to the one
list endpoints/base.py declares: the functions on main.USES_KEYS bind every key this
deployment holds, and no other function binds any.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FUNCTIONS = Path(__file__).resolve().parents[1] / "functions"
ALL_KEYS = ["ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY"]

# One interpreter for every case: main and its endpoints are imported afresh under each deploy environment.
_PROBE = """
import importlib, json, os, sys
out = []
for env in json.load(sys.stdin):
    for k in [k for k in os.environ if k.startswith("CARDCHAT_") or k.endswith("_API_KEY")]:
        del os.environ[k]
    os.environ.update(env)
    # main re-exports functions/endpoints/: those modules bind the secrets at import, so all are imported afresh
    for name in [m for m in sys.modules if m == "main" or m.split(".")[0] == "endpoints"]:
        del sys.modules[name]
    main = importlib.import_module("main")
    bound = {name: sorted(s["key"] for s in fn.__firebase_endpoint__.secretEnvironmentVariables or [])
             for name, fn in vars(main).items() if hasattr(fn, "__firebase_endpoint__")}
    out.append({"bound": bound, "uses_keys": sorted(main.USES_KEYS)})
print(json.dumps(out))
"""

CASES = [
    ({"CARDCHAT_SECRETS": "ANTHROPIC_API_KEY, OPENAI_API_KEY,GEMINI_API_KEY"}, ALL_KEYS),
    ({"CARDCHAT_SECRETS": "ANTHROPIC_API_KEY,NOT_A_MODEL_KEY"}, ["ANTHROPIC_API_KEY"]),
    # A remote embedder's key is bound even when not listed: without it no card embeds.
    ({"CARDCHAT_SECRETS": "", "CARDCHAT_EMBEDDINGS": "openai"}, ["OPENAI_API_KEY"]),
    (
        {"CARDCHAT_SECRETS": "ANTHROPIC_API_KEY", "CARDCHAT_EMBEDDINGS": "Gemini"},
        ["ANTHROPIC_API_KEY", "GEMINI_API_KEY"],
    ),
    # the key that seals users' own API keys (llm/keycrypt.py) is bound like the model keys, when listed
    (
        {"CARDCHAT_SECRETS": "ANTHROPIC_API_KEY,CARDCHAT_KEY_ENCRYPTION_KEY"},
        ["ANTHROPIC_API_KEY", "CARDCHAT_KEY_ENCRYPTION_KEY"],
    ),
    ({}, []),
]


@pytest.fixture(scope="module")
def declared() -> list[dict]:
    """Per case of CASES: {"bound": {function: secrets it declares}, "uses_keys": main.USES_KEYS}."""
    run = subprocess.run(
        [sys.executable, "-c", _PROBE],
        cwd=FUNCTIONS,
        capture_output=True,
        text=True,
        input=json.dumps([env for env, _ in CASES]),
        timeout=300,
        env=os.environ | {"FUNCTIONS_EMULATOR": "true", "GCLOUD_PROJECT": "demo-cardchat"},
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", range(len(CASES)), ids=[str(env) for env, _ in CASES])
def test_functions_that_reach_a_provider_bind_the_keys_and_no_others_do(declared, case):
    keys = CASES[case][1]
    bound, uses_keys = declared[case]["bound"], declared[case]["uses_keys"]
    assert set(uses_keys) <= set(bound), f"main.USES_KEYS names functions main does not declare: {uses_keys}"
    assert {name: bound[name] for name in uses_keys} == {name: keys for name in uses_keys}
    assert {name: s for name, s in bound.items() if name not in uses_keys and s} == {}
