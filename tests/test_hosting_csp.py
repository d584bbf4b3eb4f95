"""The hosting Content-Security-Policy names the deployment's own endpoints,
never any Firebase project's: firebase.json holds it with placeholders,
scripts/deploy fills them in from the build's VITE_FIREBASE_CONFIG
(scripts/hosting_config.py), and the emulators' config pins it to the demo
project before adding its own origins (scripts/lib.sh firebase_config)."""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("hosting_config", ROOT / "scripts" / "hosting_config.py")
assert _spec is not None and _spec.loader is not None
hosting_config = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hosting_config)

GOOGLE_APIS = [
    "https://firestore.googleapis.com",
    "https://identitytoolkit.googleapis.com",
    "https://securetoken.googleapis.com",
]


def _committed() -> dict:
    return json.loads((ROOT / "firebase.json").read_text())


def _directives(cfg: dict) -> dict[str, list[str]]:
    """The one CSP of `cfg`'s hosting headers, as directive → sources."""
    (policy,) = [
        h["value"]
        for block in cfg["hosting"]["headers"]
        for h in block["headers"]
        if h["key"].lower() == "content-security-policy"
    ]
    parts = [d.split() for d in policy.split(";") if d.strip()]
    return {p[0]: p[1:] for p in parts}


def test_the_committed_policy_trusts_no_wildcard_host():
    csp = _directives(_committed())
    assert not [s for sources in csp.values() for s in sources if "*" in s]
    assert csp["connect-src"] == ["'self'", *GOOGLE_APIS, hosting_config.FUNCTIONS_SOURCE]
    assert csp["frame-src"] == ["'self'", hosting_config.AUTH_DOMAIN_SOURCE]


def test_a_deploy_pins_the_policy_to_its_own_project():
    cfg = _committed()
    pinned = hosting_config.pin_config(cfg, "my-proj-1")
    csp = _directives(pinned)
    assert csp["connect-src"] == ["'self'", *GOOGLE_APIS, "https://us-central1-my-proj-1.cloudfunctions.net"]
    assert csp["frame-src"] == ["'self'", "https://my-proj-1.firebaseapp.com"]
    assert "__" not in json.dumps(pinned["hosting"]["headers"])
    # the guard against deploying the placeholders goes; nothing else changes
    assert "predeploy" in cfg["hosting"] and "predeploy" not in pinned["hosting"]
    rest = copy.deepcopy(pinned)
    rest["hosting"]["headers"], rest["hosting"]["predeploy"] = cfg["hosting"]["headers"], cfg["hosting"]["predeploy"]
    assert rest == cfg


def test_a_custom_auth_domain_is_the_one_framed():
    csp = _directives(hosting_config.pin_config(_committed(), "my-proj-1", "login.example.com"))
    assert csp["frame-src"] == ["'self'", "https://login.example.com"]


@pytest.mark.parametrize(
    "project, auth_domain",
    [
        ("*", None),
        ("my-proj-1; script-src *", None),
        ("My-Proj", None),
        ("my-proj-1", "*.firebaseapp.com"),
        ("my-proj-1", "evil.com https:"),
        ("my-proj-1", "localhost"),
    ],
)
def test_a_malformed_project_or_auth_domain_is_refused(project, auth_domain):
    with pytest.raises(ValueError):
        hosting_config.pin_config(_committed(), project, auth_domain)


def test_the_deploy_config_is_written_from_the_builds_firebase_config(tmp_path):
    out = tmp_path / "firebase.deploy.json"
    env = {**os.environ, "VITE_FIREBASE_CONFIG": json.dumps({"projectId": "prod-cards", "apiKey": "k"})}
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "hosting_config.py"), "deploy", str(ROOT / "firebase.json"), str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "prod-cards"
    csp = _directives(json.loads(out.read_text()))
    assert "https://us-central1-prod-cards.cloudfunctions.net" in csp["connect-src"]
    assert csp["frame-src"] == ["'self'", "https://prod-cards.firebaseapp.com"]
    del env["VITE_FIREBASE_CONFIG"]
    refused = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "hosting_config.py"), "deploy", str(ROOT / "firebase.json"), str(out)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0 and "VITE_FIREBASE_CONFIG" in refused.stderr


def test_the_emulators_config_pins_the_demo_project_and_adds_its_origins():
    offset = "14990"  # a stack of its own: only its derived config is written, then removed
    env = {**os.environ, "CARDCHAT_PORT_OFFSET": offset}
    done = subprocess.run(
        ["bash", "-c", "source scripts/lib.sh && firebase_config"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    path = Path(done.stdout.strip())
    try:
        cfg = json.loads(path.read_text())
    finally:
        path.unlink()
    csp = _directives(cfg)
    emulators = cfg["emulators"]
    origin = lambda name: f"http://{emulators[name]['host']}:{emulators[name]['port']}"  # noqa: E731
    assert csp["connect-src"] == [
        "'self'",
        *GOOGLE_APIS,
        "https://us-central1-demo-cardchat.cloudfunctions.net",
        origin("auth"),
        origin("firestore"),
        origin("functions"),
    ]
    assert csp["frame-src"] == ["'self'", "https://demo-cardchat.firebaseapp.com", origin("auth")]
