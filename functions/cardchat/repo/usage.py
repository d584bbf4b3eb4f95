"""Firestore adapter for usage_daily: per owner, UTC day and model, the
answers, tokens and cost, added to in the transaction that completes each
answer (repo.messages.finish), so the Usage page reads at most 30 days x
models small documents and never scans messages."""

from __future__ import annotations

from google.cloud import firestore

from cardchat.schema.accounts import USAGE_DAILY, UsageDay, usage_day_id


def add_in(tx: firestore.Transaction, db: firestore.Client, day: UsageDay) -> None:
    """Adds one answer's figures to its day's document inside `tx` (a write
    only: call it after the transaction's reads)."""
    ref = db.collection(USAGE_DAILY).document(usage_day_id(day.owner, day.day, day.model))
    tx.set(
        ref,
        {
            "owner": day.owner,
            "day": day.day,
            "model": day.model,
            "answers": firestore.Increment(day.answers),
            "input_tokens": firestore.Increment(day.input_tokens),
            "output_tokens": firestore.Increment(day.output_tokens),
            "cost_usd": firestore.Increment(day.cost_usd),
        },
        merge=True,
    )
