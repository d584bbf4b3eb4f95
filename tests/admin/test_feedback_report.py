"""`python -m cardchat feedback`: the rated answers for
an admin, as a table or CSV, with model, rating, comment, question and the
ids of the cards each answer cited."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from conftest import PROJECT

from cardchat.__main__ import main
from cardchat.admin.feedback import parse_since, rows
from cardchat.repo.feedback import put_feedback
from cardchat.schema.accounts import AnswerFeedback
from chat_support import make_chat

pytestmark = pytest.mark.emulator

NOW = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)


def test_since_takes_days_hours_or_a_date():
    assert parse_since("7d", NOW) == NOW - timedelta(days=7)
    assert parse_since("12h", NOW) == NOW - timedelta(hours=12)
    assert parse_since("2026-03-01", NOW) == datetime(2026, 3, 1, tzinfo=UTC)
    with pytest.raises(ValueError, match="--since"):
        parse_since("last week", NOW)


@pytest.fixture
def rated(db):
    card_ids = make_chat(
        db,
        [
            ("user", "complete", "What moves the tides?"),
            ("assistant", "complete", "The moon pulls the oceans [1]. Spring tides come at full moon [3]."),
            ("user", "complete", "And the harbour?"),
            ("assistant", "complete", "The gate opens at dawn [2]."),
        ],
    )
    recent = NOW - timedelta(days=1)
    put_feedback(
        db,
        "src-m1",
        AnswerFeedback("u1", "src", "src-m1", "down", "missed, the tables", "offline-extractive", recent, recent),
    )
    old = NOW - timedelta(days=30)
    put_feedback(db, "src-m3", AnswerFeedback("u1", "src", "src-m3", "up", "", "offline-extractive", old, old))
    return card_ids


def test_rows_name_the_question_and_the_cited_cards_of_each_rated_answer(db, rated):
    (row,) = rows(db, NOW - timedelta(days=7))
    assert (row.rating, row.model, row.comment) == ("down", "offline-extractive", "missed, the tables")
    assert row.question == "What moves the tides?"
    assert row.cited_card_ids == f"{rated[0]} {rated[2]}"
    assert [r.message for r in rows(db, NOW - timedelta(days=60))] == ["src-m3", "src-m1"]


def test_the_command_prints_a_table_or_csv(db, rated, capsys):
    assert main(["feedback", "--project", PROJECT, "--since", "2026-03-10", "--csv"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["rating"], r["comment"], r["question"]) for r in table] == [
        ("down", "missed, the tables", "What moves the tides?")
    ]
    assert main(["feedback", "--project", PROJECT, "--since", "2026-03-10"]) == 0
    out = capsys.readouterr().out
    assert "missed, the tables" in out and "1 rated answers: 0 up, 1 down" in out
    assert main(["feedback", "--project", PROJECT, "--since", "soon"]) == 2
