"""The backfill beside a live app: it waits while an answer is
being generated, so a chat's first words never queue behind it."""

from __future__ import annotations

from cardchat.admin.backfill import backfill
from cardchat.repo.embeddings import clear_cache
from cardchat.repo.messages import answer_in_progress
from cardchat.schema.documents import CARD_EMBEDDINGS, CARDS, CHAT_MESSAGES, Card


def test_a_gentle_backfill_waits_while_an_answer_generates(db):
    clear_cache()
    for i in range(3):
        db.collection(CARDS).document(f"c{i}").set(Card(f"Card {i}", f"Rebasing moves commit {i}.", "me").to_dict())
    answer = db.collection(CHAT_MESSAGES).document("chat-0001")
    answer.set({"chat": "chat", "message_index": 1, "role": "assistant", "status": "streaming", "content": ""})
    embedded_while_waiting: list[int] = []

    def sleep(seconds: float) -> None:  # the answer finishes while the backfill waits
        embedded_while_waiting.append(len(list(db.collection(CARD_EMBEDDINGS).stream())))
        answer.update({"status": "complete"})

    assert answer_in_progress(db)
    done, fresh = backfill(db, "minilm", busy=lambda: answer_in_progress(db), batch_size=2, sleep=sleep)
    assert embedded_while_waiting == [0]  # nothing was embedded until the answer was done
    assert (done, fresh) == (3, 0) and not answer_in_progress(db)
    assert len(list(db.collection(CARD_EMBEDDINGS).stream())) == 3
