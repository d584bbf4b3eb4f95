"""An admin deletes a user (`python -m cardchat delete-account --uid …`): the
same deletion as the deleteAccount callable (access/account_deletion.py), run with the
admin's credentials; run again, it finishes one that was interrupted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardchat.access import account_deletion
from cardchat.chat.recheck import withdraw_cards_of
from cardchat.repo.admin_app import admin_app

if TYPE_CHECKING:
    from cardchat.repo.db import Db


def delete_account(db: Db, project: str, uid: str) -> None:
    account_deletion.erase(db, uid, withdraw_cards_of, admin_app(project))


def finish_deletions(db: Db) -> list[str]:
    """The later passes of account deletions that are due (what finishAccountDeletions runs)."""
    return account_deletion.finish_due(db, withdraw_cards_of)
