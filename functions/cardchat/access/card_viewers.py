"""resolveViewers: the card editor's people, by email.

Cards keep their viewers as uids (the rules check `viewers` against
request.auth.uid); people know each other by email. resolveViewers turns the
addresses a card's owner types into uids, and names the viewers of one of
their own cards back by email for the editor.

A look-up that answers for any address tells its caller who has an account,
so it is bounded:
- signed-in callers only (endpoints/base.py);
- at most 50 addresses a call (a card's viewer limit), and LOOKUPS_PER_HOUR
  addresses per user in a fixed window, counted before Auth is asked, in the
  transaction that refuses (RESOURCE_EXHAUSTED with the wait): an enumerator
  learns at most that many addresses an hour per account. shareChat spends
  the same budget (owning a chat takes no more than a shape-valid own key);
- the reverse direction names only uids the caller once found by email
  (remembered, as uids, in the server-only viewer_lookups/{uid}; no email is
  stored anywhere): a uid is no secret (public cards carry their owner's), so
  any uid written into one's own card must not become an address. Other
  viewers come back with an empty email, as do deleted accounts.
Unknown addresses are named in `unknown`, as shareChat names them: a typo
silently dropped would leave a card unshared, and the budget already bounds
what the answer reveals.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from cardchat.errors import NotFound, ResourceExhausted
from cardchat.parsing.addresses import ResolveViewersRequest
from cardchat.repo import accounts, viewer_lookups
from cardchat.repo.cards import load_access
from cardchat.schema.accounts import ViewerLookups
from cardchat.schema.documents import now as utc_now

if TYPE_CHECKING:
    from cardchat.repo.db import Db

LOOKUPS_PER_HOUR = 100
WINDOW = timedelta(hours=1)
#: uids remembered per user (oldest dropped): far more than anyone shares with, and a bounded document.
MAX_FOUND = 5_000


def spend(state: ViewerLookups, addresses: int, now: datetime) -> ViewerLookups:
    """`state` (ViewerLookups) with `addresses` more looked up in its window; refused past the budget."""
    if now - state.window_start >= WINDOW:
        state = replace(state, window_start=now, count=0)
    if state.count + addresses > LOOKUPS_PER_HOUR:
        wait = (state.window_start + WINDOW - now).total_seconds()
        minutes = max(1, round(wait / 60))
        message = f"At most {LOOKUPS_PER_HOUR} addresses can be looked up an hour; try again in {minutes} min"
        raise ResourceExhausted(message, retry_after=wait)
    return replace(state, count=state.count + addresses, found=state.found[-MAX_FOUND:])


def spend_lookups(db: Db, uid: str, addresses: int, now: datetime | None = None) -> ViewerLookups:
    """Spends `addresses` of `uid`'s hourly budget, before Auth is asked about
    any of them (RESOURCE_EXHAUSTED past it: nothing is spent). Every look-up
    by email spends it: resolveViewers and shareChat alike."""
    when = now or utc_now()
    return viewer_lookups.update(db, uid, lambda s: spend(s, addresses, when))


def _card_viewers(db: Db, uid: str, card_id: str) -> list[str]:
    card = load_access(db, [card_id]).get(card_id)
    if card is None or card.owner != uid:
        raise NotFound("Card not found")  # another's card and a missing one alike
    return list(card.viewers)


def resolve_viewers(db: Db, uid: str, req: ResolveViewersRequest, now: datetime | None = None) -> dict[str, Any]:
    """{viewers: [{uid, email, display_name}], unknown: [email]}: the card's
    viewers in its order, then the accounts of `req.emails` in theirs."""
    stored = _card_viewers(db, uid, req.card_id) if req.card_id else []
    found: dict[str, accounts.Account] = {}
    if req.emails:
        state = spend_lookups(db, uid, len(req.emails), now)
        found = accounts.by_email(req.emails)
        viewer_lookups.remember(db, uid, [a.uid for a in found.values()])
        known = {*state.found, *(a.uid for a in found.values())}
    else:
        known = set(viewer_lookups.get(db, uid).found)
    named = accounts.by_uid([v for v in stored if v in known])
    viewers = [named[v].public() if v in named else {"uid": v, "email": "", "display_name": ""} for v in stored]
    listed = set(stored)
    for email in req.emails:
        account = found.get(email)
        if account and account.uid not in listed:
            viewers.append(account.public())
            listed.add(account.uid)
    return {"viewers": viewers, "unknown": [e for e in req.emails if e not in found]}
