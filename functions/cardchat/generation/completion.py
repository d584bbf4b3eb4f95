"""A run's completion (generation/engine.py): the whole answer written once, its chunks dropped,
then what a complete answer does next."""

from __future__ import annotations

from dataclasses import replace

from cardchat.chat.packed_cards import answer_citations
from cardchat.generation import accounting, run_log
from cardchat.generation.answer_coverage import coverage_of
from cardchat.generation.run_state import Run
from cardchat.repo import chats as chats_repo
from cardchat.repo import messages as messages_repo


def complete(run: Run) -> str:
    """Write the whole answer once, then drop its chunks."""
    assert run.spec is not None and run.window is not None and run.writer is not None
    chunks = run.writer.close()
    run.writer = None
    content = "".join(run.parts)
    if run.usage is None:  # cut off before the provider's count: ours, for the rate limit
        run.usage = accounting.estimated_usage(run.spec, run.window.messages, run.background_tokens, content)
    total = run.elapsed()
    private = run.private  # as the answer had it (withdrawals and this turn's additions stored)
    card_ids = private.card_ids
    fields = accounting.answer_fields(run.usage, content, card_ids)
    # the public cards it cites become visitors' links with it, and nothing else ever adds one
    links = answer_citations(run.db, fields["sources"], card_ids, private.card_owners)
    run.finish(
        {
            "status": "complete",
            "content": content,
            "model": run.spec.id,
            **fields,
            "coverage": coverage_of(run.db, run.window.messages[-1]["content"], content, card_ids),
            "timings": accounting.timings(run.ttft, total, chunks, run.retries),
            "dropped_turns": run.window.dropped,
            "cut_off": run.cut_off,
            "error": None,
        },
        {"last_updated": run.now(), **chats_repo.citation_fields(links)},
        accounting.answer_usage(run.owner, run.msg.chat, run.spec, run.usage),
    )
    try:
        messages_repo.delete_chunks(run.db, run.message_id)
    except Exception as e:  # the answer is complete and stays so; chunks left are only clutter
        run_log.unexpected(run.message_id, e, run.secrets, run.background)
    if run.then is not None:
        done = replace(run.msg, status="complete", content=content, model=run.spec.id)
        run.then(run.db, run.msg.chat, run.chat, run.history, run.message_id, done)
    return "complete"
