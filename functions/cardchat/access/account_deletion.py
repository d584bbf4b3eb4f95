"""A user leaves: every document of theirs goes, then their Auth account.

deleteAccount runs it for the caller, and only ever for the caller, and only on an
ID token from a sign-in of the last RECENT_SIGN_IN (a token left open on another
machine cannot delete an account; the SPA signs its user in again and retries). The
admin CLI (`python -m cardchat delete-account --uid …`) runs it for anyone. The
Firestore part is repo/account_data.py's steps, each idempotent, in an order that
keeps every state between them valid: an interrupted deletion (a timeout, a crash)
is finished by running it again. The Auth account goes last, so a user whose
deletion stopped midway can still sign in and ask again.

Three things make "gone" hold for others at once and stay so:
- the user's refresh tokens are revoked first, so no new ID token is issued;
- their cards leave other people's stored backgrounds in the deletion itself
  (`withdraw`: chat/recheck.withdraw_cards_of, which the caller hands in because
  it lives above this layer), not at each chat's next answer;
- an ID token issued before the deletion still works for up to an hour (Firebase
  does not check revocation on every call, and the rules cannot). What it writes
  meanwhile is removed by a later pass: `account_deletions/{uid}` is marked due
  LATER_PASS after the deletion, and the scheduled finishAccountDeletions runs the
  steps again then (finish_due). A tombstone every rule would check was the other
  way; it costs a read on every client write, and leaves the callables unguarded.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from cardchat.errors import FailedPrecondition, PermissionDenied

if TYPE_CHECKING:
    from cardchat.repo.db import Db

#: How old the caller's sign-in may be for deleteAccount (the ID token's auth_time).
RECENT_SIGN_IN = timedelta(minutes=5)
#: When the later pass runs: an ID token lives at most an hour, plus a margin for an answer's run.
LATER_PASS = timedelta(minutes=70)
#: Later passes one scheduled run takes at most; the rest wait for the next.
PASSES_PER_RUN = 20
#: What deleteAccount answers a sign-in too old; the SPA signs the user in again on it.
SIGN_IN_AGAIN = (
    f"sign_in: deleting your account needs a sign-in of the last {int(RECENT_SIGN_IN.total_seconds() // 60)} "
    "minutes; sign in again"
)

#: Takes a leaver's cards out of other people's backgrounds (chat/recheck.withdraw_cards_of).
Withdraw = Callable[[Any, str], int]


def delete_account(
    db: Db, caller: str, uid: str | None, signed_in: Any, withdraw: Withdraw, now: datetime | None = None
) -> None:
    """Deletes `caller`'s data and account. `uid` (what the request named, if anything) must be the
    caller's own: nobody deletes another user's data through the callable. `signed_in`: the ID token's
    auth_time (seconds since the epoch); older than RECENT_SIGN_IN is FAILED_PRECONDITION (SIGN_IN_AGAIN)."""
    from cardchat.schema.documents import now as utc_now

    if uid is not None and uid != caller:
        raise PermissionDenied("You can delete only your own account")
    when = now or utc_now()
    if not isinstance(signed_in, int | float) or when.timestamp() - float(signed_in) > RECENT_SIGN_IN.total_seconds():
        raise FailedPrecondition(SIGN_IN_AGAIN)
    erase(db, caller, withdraw, now=when)


def erase(db: Db, uid: str, withdraw: Withdraw, auth_app: Any = None, now: datetime | None = None) -> None:
    """Everything of `uid`, then the Auth user (an admin's run: no caller to check;
    `auth_app`: the firebase_admin app of the project, default the default app)."""
    from cardchat.repo import account_data, accounts
    from cardchat.schema.documents import now as utc_now

    accounts.revoke_sessions(uid, auth_app)
    account_data.mark_later_pass(db, uid, (now or utc_now()) + LATER_PASS)
    _steps(db, uid, withdraw)
    accounts.delete_auth_user(uid, auth_app)


def finish_due(db: Db, withdraw: Withdraw, now: datetime | None = None) -> list[str]:
    """The later pass of every deletion due at `now`: its steps again (what a still-valid ID token
    wrote after it), then its mark goes. Returns the uids finished."""
    from cardchat.repo import account_data
    from cardchat.schema.documents import now as utc_now

    done = account_data.later_passes_due(db, now or utc_now(), PASSES_PER_RUN)
    for uid in done:
        _steps(db, uid, withdraw)
        account_data.end_later_pass(db, uid)
    return done


def _steps(db: Db, uid: str, withdraw: Withdraw) -> None:
    from cardchat.repo import account_data

    for step in account_data.STEPS:
        step(db, uid)
    withdraw(db, uid)  # after the cards are gone: a re-check withdraws exactly those
