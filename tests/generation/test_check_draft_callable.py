"""checkDraft through the real Functions, Auth and Firestore emulators: the contract's shape, and
its refusals (signed out, and a full search minute; malformed input is in test_endpoint_refusals.py)."""

from __future__ import annotations

import pytest
from conftest import FULL_MINUTE_AHEAD, CallError

from cardchat.access.ratelimit import DEFAULT_SEARCHES_PER_MINUTE
from cardchat.schema.documents import CARDS, RATE_LIMITS, RATE_WINDOWS, SEARCH_WINDOW, Card, now

pytestmark = pytest.mark.functions

DRAFT = "Git rebase replays your commits on top of another branch. Git rebase keeps 5 backup refs of history."


@pytest.fixture
def author(app_db, sign_up):
    uid, token = sign_up()
    body = "Git rebase replays your commits on top of another branch. Git rebase keeps 3 backup refs of history."
    app_db.collection(CARDS).document(f"{uid}_rebase").set(Card("Rebasing", body, uid).to_dict())
    return uid, token


def test_a_draft_comes_back_claim_by_claim_with_verdicts_cards_and_passages(author, call):
    uid, token = author
    out = call("checkDraft", {"text": DRAFT}, token)
    assert out == {
        "claims": [
            {
                "text": "Git rebase replays your commits on top of another branch.",
                "verdict": "supported",
                "cards": [
                    {
                        "id": f"{uid}_rebase",
                        "title": "Rebasing",
                        "passage": "Git rebase replays your commits on top of another branch.",
                    }
                ],
            },
            {
                "text": "Git rebase keeps 5 backup refs of history.",
                "verdict": "conflicting",
                "cards": [
                    {
                        "id": f"{uid}_rebase",
                        "title": "Rebasing",
                        "passage": "Git rebase keeps 3 backup refs of history.",
                    }
                ],
            },
        ]
    }


def test_a_signed_out_caller_is_refused(call):
    with pytest.raises(CallError) as e:
        call("checkDraft", {"text": DRAFT}, None)
    assert e.value.status == "UNAUTHENTICATED"


def test_a_check_past_the_callers_search_minute_is_refused(author, app_db, call):
    uid, token = author
    window = app_db.collection(RATE_LIMITS).document(uid).collection(RATE_WINDOWS).document(SEARCH_WINDOW)
    window.set({"recent": [now() + FULL_MINUTE_AHEAD] * DEFAULT_SEARCHES_PER_MINUTE})
    with pytest.raises(CallError) as e:
        call("checkDraft", {"text": DRAFT}, token)
    assert e.value.status == "RESOURCE_EXHAUSTED"
    window.set({"recent": []})
    assert call("checkDraft", {"text": DRAFT}, token)["claims"]
