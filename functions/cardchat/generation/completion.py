"""A run's completion (generation/engine.py): the whole answer written once, its chunks dropped,
then what a complete answer does next."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cardchat.chat.packed_cards import answer_citations
from cardchat.generation import accounting, claims, run_log
from cardchat.generation.answer_coverage import coverage_of
from cardchat.generation.citation_checks import check, shared_vectors
from cardchat.generation.run_state import Run
from cardchat.repo import messages as messages_repo
from cardchat.retrieval.background import parse_background
from cardchat.schema.messages import FinalAnswer, OutputUsage


def complete(run: Run) -> str:
    """Write the whole answer once, then drop its chunks."""
    assert run.spec is not None and run.writer is not None
    chunks = run.writer.close()
    run.writer = None
    answer = final_answer(run, "".join(run.parts), chunks)
    private = run.private  # as the answer had it (withdrawals and this turn's additions stored)
    # the public cards it cites become visitors' links with it, and nothing else ever adds one
    links = answer_citations(run.db, answer.sources, private.card_ids, private.card_owners)
    assert run.usage is not None  # final_answer counted it when the provider did not
    searches = run.search.searches if run.search is not None else 0
    run.finish(answer, links, accounting.answer_usage(run.owner, run.msg.chat, run.spec, run.usage, searches))
    try:
        messages_repo.delete_chunks(run.db, run.message_id)
    except Exception as e:  # the answer is complete and stays so; chunks left are only clutter
        run_log.unexpected(run.message_id, e, run.secrets, run.background)
    if run.then is not None:
        done = replace(run.msg, status="complete", content=answer.content, model=run.spec.id)
        run.then(run.db, run.msg.chat, run.chat, run.history, run.message_id, done)
    return "complete"


def final_answer(run: Run, content: str, chunks: int) -> FinalAnswer:
    """The complete answer `content` as every reader of the chat reads it: its output tokens, its
    citations read against the background's cards, its coverage, timings and notices."""
    assert run.spec is not None and run.window is not None
    total = run.elapsed()
    if run.usage is None or not (run.usage.input_tokens or run.usage.output_tokens):
        # cut off before the provider's count, or it sent none: ours, for the rate limit and the owner
        run.usage = accounting.estimated_usage(run.spec, run.window.messages, run.background_tokens, content)
    card_ids = run.private.card_ids
    return FinalAnswer(
        status="complete",
        content=content,
        model=run.spec.id,
        usage=OutputUsage(run.usage.output_tokens),
        uncited_claims=claims.uncited_count(content, claims.citable(card_ids)),
        sources=claims.citations(content, card_ids),
        coverage=coverage_of(run.db, run.window.messages[-1]["content"], content, card_ids),
        citation_checks=checks_of(run, content),
        timings=accounting.timings(run.ttft, total, chunks, run.retries),
        dropped_turns=run.window.dropped,
        cut_off=run.cut_off,
    )


def checks_of(run: Run, content: str) -> list[dict[str, Any]] | None:
    """The answer's citation checks against the card text the run sent; None (no checks written,
    the answer complete all the same) when they fail."""
    if not claims.citations(content, run.private.card_ids):
        return []
    try:
        cards = {n: f"{title}\n\n{body}" for n, title, body in parse_background(run.background)}
        found = check(content, cards, claims.citable(run.private.card_ids), shared_vectors())
        return [c.to_dict() for c in found]
    except Exception as e:  # a check is a hint to the reader, never a reason to fail the answer
        run_log.unexpected(run.message_id, e, run.secrets, run.background)
        return None
