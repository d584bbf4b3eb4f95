"""The hosting Content-Security-Policy, pinned to one deployment's own endpoints.

A wildcard such as https://*.cloudfunctions.net lets the page talk to any
Firebase project's functions: an injected script could send what it reads to
an attacker's project. So firebase.json names the project's own hosts by
placeholder (FUNCTIONS_SOURCE, AUTH_DOMAIN_SOURCE), and whatever runs the
hosting fills them in first:
- a deploy (scripts/deploy): `hosting_config.py deploy firebase.json OUT`
  writes OUT for `firebase deploy --config OUT`, with the project id and
  auth domain of the build's VITE_FIREBASE_CONFIG (the very config the SPA is
  built with, so the policy cannot name another project than the one it
  calls); it prints the project id;
- the emulators (scripts/lib.sh firebase_config): the demo project, before it
  adds the emulators' own origins.
The Firebase CLI substitutes nothing in firebase.json, and a placeholder is no
valid host: deployed as it stands the page could reach no function, and
firebase.json's hosting predeploy hook refuses such a deploy with a pointer
here (the derived config drops the hook).

The shared Google API hosts (firestore, identitytoolkit, securetoken
.googleapis.com) carry the project in the request, not in the host name:
no policy can narrow them to one project.
"""

from __future__ import annotations

import copy
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "__PROJECT_ID__"
REGION = "__REGION__"
AUTH_DOMAIN = "__AUTH_DOMAIN__"
#: What firebase.json says in connect-src for the callables, and in frame-src for the sign-in popup.
FUNCTIONS_SOURCE = f"https://{REGION}-{PROJECT}.cloudfunctions.net"
AUTH_DOMAIN_SOURCE = f"https://{AUTH_DOMAIN}"

#: Google Cloud's rule for a project id: 6-30 lower-case letters, digits, hyphens.
_PROJECT_ID = re.compile(r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$")
#: A host name with at least one dot: no wildcard, port, scheme or space can pass.
_HOST = re.compile(r"^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$")
_REGION = re.compile(r"^[a-z]+-[a-z]+[0-9]+$")


def region() -> str:
    """The functions' region, as the SPA calls them (common/collections.json)."""
    found = str(json.loads((ROOT / "common" / "collections.json").read_text())["region"])
    if not _REGION.match(found):
        raise ValueError(f"common/collections.json: region {found!r} is not a region")
    return found


def pin_policy(policy: str, project: str, auth_domain: str | None = None) -> str:
    """`policy` with the placeholders filled in; ValueError for a malformed project or auth domain."""
    if not _PROJECT_ID.match(project):
        raise ValueError(f"{project!r} is not a Firebase project id")
    domain = (auth_domain or f"{project}.firebaseapp.com").lower()
    if not _HOST.match(domain):
        raise ValueError(f"authDomain {auth_domain!r} is not a host name")
    return policy.replace(REGION, region()).replace(PROJECT, project).replace(AUTH_DOMAIN, domain)


def pin_config(cfg: dict[str, Any], project: str, auth_domain: str | None = None) -> dict[str, Any]:
    """A copy of firebase.json's `cfg` with every Content-Security-Policy
    pinned to `project` and without the predeploy hook that refuses placeholders."""
    out = copy.deepcopy(cfg)
    hosting = out["hosting"]
    hosting.pop("predeploy", None)
    for block in hosting.get("headers", []):
        for header in block["headers"]:
            if header["key"].lower() == "content-security-policy":
                header["value"] = pin_policy(header["value"], project, auth_domain)
    return out


def _deploy(source: str, target: str) -> int:
    raw = os.environ.get("VITE_FIREBASE_CONFIG", "").strip()
    if not raw:
        print("VITE_FIREBASE_CONFIG is not set: it names the project to deploy (README, Deploy)", file=sys.stderr)
        return 2
    web = json.loads(raw)
    project, domain = str(web.get("projectId") or ""), web.get("authDomain")
    try:
        pinned = pin_config(json.loads(Path(source).read_text()), project, str(domain) if domain else None)
    except ValueError as e:
        print(f"VITE_FIREBASE_CONFIG: {e}", file=sys.stderr)
        return 2
    Path(target).write_text(json.dumps(pinned, indent=2) + "\n")
    print(project)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "deploy":
        print("usage: hosting_config.py deploy firebase.json OUT.json", file=sys.stderr)
        sys.exit(2)
    sys.exit(_deploy(sys.argv[2], sys.argv[3]))
