"""Shared fixtures: real emulators only, never a Firestore mock.

`scripts/test` runs pytest inside `firebase emulators:exec`, which sets
FIRESTORE_EMULATOR_HOST and FIREBASE_AUTH_EMULATOR_HOST. A developer can run
the Firestore-only tests against a bare emulator by exporting
FIRESTORE_EMULATOR_HOST themselves. With CARDCHAT_REQUIRE_ALL=1 (set by
scripts/test) a missing emulator is a failure, never a skip.
"""

from __future__ import annotations

import json as _json
import os
import urllib.error
import urllib.request
import uuid as _uuid
from datetime import timedelta

import pytest

#: In-process tests use their own project: the Functions emulator's triggers
#: listen on APP_PROJECT only, so a stub written here is not also taken by a
#: generator in the emulator.
PROJECT = "demo-cardchat-test"
#: The project the Functions emulator serves (callables, triggers).
APP_PROJECT = "demo-cardchat"
#: How far ahead a test stamps a rate window it fills, so that the window is still full when a cold
#: function worker on a loaded runner takes the call (a minute's stamps made now can age out first).
FULL_MINUTE_AHEAD = timedelta(seconds=50)
REQUIRE_ALL = os.environ.get("CARDCHAT_REQUIRE_ALL") == "1"


def _missing(what: str) -> None:
    if REQUIRE_ALL:
        pytest.fail(f"{what} is not running, and CARDCHAT_REQUIRE_ALL=1")
    pytest.skip(f"{what} is not running")


def _clear_firestore(host: str, project: str = PROJECT) -> None:
    req = urllib.request.Request(
        f"http://{host}/emulator/v1/projects/{project}/databases/(default)/documents",
        method="DELETE",
    )
    urllib.request.urlopen(req, timeout=10).read()


@pytest.fixture(scope="session")
def firestore_host() -> str:
    host = os.environ.get("FIRESTORE_EMULATOR_HOST")
    if not host:
        _missing("the Firestore emulator (FIRESTORE_EMULATOR_HOST)")
    return host


@pytest.fixture
def db(firestore_host):
    """A Firestore client on an emptied emulator database."""
    from google.cloud import firestore

    _clear_firestore(firestore_host)
    client = firestore.Client(project=PROJECT)
    yield client
    client.close()


@pytest.fixture(scope="session")
def auth_accounts():
    """auth_accounts() -> uid of a fresh account in the Auth emulator, made
    in-process through firebase_admin (the default app, on PROJECT), as the
    server's own Auth look-ups (repo/accounts.py) see it."""
    if not os.environ.get("FIREBASE_AUTH_EMULATOR_HOST"):
        _missing("the Auth emulator (FIREBASE_AUTH_EMULATOR_HOST)")
    import firebase_admin
    from firebase_admin import auth

    if firebase_admin._DEFAULT_APP_NAME not in firebase_admin._apps:  # a named app (the admin CLI's) is not it
        firebase_admin.initialize_app(options={"projectId": PROJECT})

    def make() -> str:
        return str(auth.create_user(email=f"a{_uuid.uuid4().hex[:10]}@cardchat.test").uid)

    return make


@pytest.fixture(scope="session")
def functions_base() -> str:
    """Base URL of the callable functions, e.g. http://127.0.0.1:5001/demo-cardchat/us-central1"""
    host = os.environ.get("FUNCTIONS_EMULATOR_HOST") or os.environ.get("CARDCHAT_FUNCTIONS_HOST")
    if not host or not os.environ.get("FIREBASE_AUTH_EMULATOR_HOST"):
        _missing("the Functions and Auth emulators")
    return f"http://{host}/{APP_PROJECT}/us-central1"


@pytest.fixture
def app_db(firestore_host, functions_base):
    """A Firestore client on the emptied database the Functions emulator serves."""
    from google.cloud import firestore

    _clear_firestore(firestore_host, APP_PROJECT)
    client = firestore.Client(project=APP_PROJECT)
    yield client
    client.close()


# --- callables through the Functions + Auth emulators -----------------------


class CallError(Exception):
    def __init__(self, status: str, message: str, details=None):
        super().__init__(f"{status}: {message}")
        self.status, self.message, self.details = status, message, details


def _post(url: str, body: dict, headers: dict | None = None, timeout: float = 120) -> dict:
    req = urllib.request.Request(
        url,
        data=_json.dumps(body).encode(),
        method="POST",
        headers={"content-type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return _json.loads(r.read())
    except urllib.error.HTTPError as e:
        return _json.loads(e.read() or b"{}")


class Caller:
    """Calls callables the way the JS SDK does: POST {data}, Bearer ID token."""

    def __init__(self, base: str):
        self.base = base

    def __call__(self, name: str, data: dict, token: str | None = None):
        headers = {"authorization": f"Bearer {token}"} if token else {}
        out = _post(f"{self.base}/{name}", {"data": data}, headers)
        if "error" in out:
            err = out["error"]
            raise CallError(err.get("status", "?"), err.get("message", ""), err.get("details"))
        return out["result"]


@pytest.fixture(scope="session")
def call(functions_base) -> Caller:
    return Caller(functions_base)


@pytest.fixture(scope="session")
def sign_up(functions_base):
    """sign_up() -> (uid, id_token) of a fresh Auth-emulator user."""
    host = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]

    def make(email: str | None = None) -> tuple[str, str]:
        email = email or f"u{_uuid.uuid4().hex[:10]}@cardchat.test"
        out = _post(
            f"http://{host}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-key",
            {"email": email, "password": "secret-pass", "returnSecureToken": True},
        )
        return out["localId"], out["idToken"]

    return make


#: The fixtures that reach APP_PROJECT, which the Functions emulator serves and app_db empties.
_APP_FIXTURES = {"app_db", "call", "sign_up", "functions_base"}


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test that reaches APP_PROJECT is marked `functions`: scripts/run-suites runs those apart from
    the rest, before the demo seed and the browser tests use that project, and the rest beside them."""
    callspec = getattr(item, "callspec", None)  # a parametrized argument of the same name is no fixture
    reached = _APP_FIXTURES.intersection(getattr(item, "fixturenames", ())) - set(callspec.params if callspec else ())
    if reached and item.get_closest_marker("functions") is None:
        pytest.fail(f"{item.nodeid} uses {', '.join(sorted(reached))} (APP_PROJECT): mark it pytest.mark.functions")


def pytest_configure(config: pytest.Config) -> None:
    import index_usage

    index_usage.install()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fails the run when a query made during it filters or orders on a field that
    firestore.indexes.json exempts from indexing (index_usage.py says why)."""
    import index_usage

    found = index_usage.breaches(index_usage.seen, index_usage.exempted())
    if found:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = "queries filter or order on fields firestore.indexes.json exempts: " + ", ".join(found)
        if reporter is not None:
            reporter.write_line(message, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
