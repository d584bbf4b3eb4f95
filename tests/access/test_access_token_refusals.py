"""createAccessToken and revokeAccessToken refuse bad input as
INVALID_ARGUMENT naming the field, and a signed-out caller as
UNAUTHENTICATED, writing nothing (through the Functions emulator)."""

from __future__ import annotations

import pytest
from conftest import CallError

from cardchat.schema.accounts import ACCESS_TOKEN_HASHES, ACCESS_TOKENS

pytestmark = pytest.mark.functions

LONE = "\ud800"  # sent as JSON's "\ud800": a lone surrogate, no UTF-8 form
BAD = [
    ("createAccessToken", {}, "label"),
    ("createAccessToken", {"label": "   "}, "label"),
    ("createAccessToken", {"label": 7}, "label"),
    ("createAccessToken", {"label": "x" * 101}, "label"),
    ("createAccessToken", {"label": "a" + LONE}, "label"),
    ("createAccessToken", {"label": "x", "scope": "admin"}, "scope"),
    ("createAccessToken", {"label": "x", "scope": ["write"]}, "scope"),
    ("revokeAccessToken", {}, "token"),
    ("revokeAccessToken", {"token": "ccpat_x", "id": "abc"}, "token"),
    ("revokeAccessToken", {"token": 5}, "token"),
    ("revokeAccessToken", {"id": "a/b"}, "id"),
]


def test_bad_input_names_the_field_and_writes_nothing(app_db, sign_up, call):
    _, id_token = sign_up()
    for name, data, field in BAD:
        with pytest.raises(CallError) as e:
            call(name, data, id_token)
        assert (e.value.status, e.value.message.split(":")[0]) == ("INVALID_ARGUMENT", field), (name, data)
    assert list(app_db.collection(ACCESS_TOKENS).stream()) == []
    assert list(app_db.collection(ACCESS_TOKEN_HASHES).stream()) == []


def test_a_signed_out_caller_is_unauthenticated(app_db, call):
    for name, data in (("createAccessToken", {"label": "x"}), ("revokeAccessToken", {"id": "abc"})):
        with pytest.raises(CallError) as e:
            call(name, data)
        assert e.value.status == "UNAUTHENTICATED"
    assert list(app_db.collection(ACCESS_TOKENS).stream()) == []
