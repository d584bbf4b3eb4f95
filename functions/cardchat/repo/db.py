"""The one name for the Firestore handle the domain passes down to repo/.

A type alias only: the domain writes `db: Db` under TYPE_CHECKING and never
imports Firebase at run time for it (the only Firebase code is in repo/);
mypy then checks every call that carries the handle down the layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from google.cloud import firestore

Db: TypeAlias = "firestore.Client"
