"""Answer generation: take a `ready` answer's run, stream the model's text into
coalesced chunk documents, then write the whole answer once.

The generateAnswer task calls `generate` once per run asked for
(generation/answer_runs.py): a new turn, a retry, the sweeper's re-drive; the
run's own writes to the message fire nothing. Delivery is at-least-once and two tasks
can race, so taking the run is a compare-and-set that only a `ready` message passes
(exactly one of two racers lands it; the other skips: messages_repo.take_run).
The run then holds a lease it renews while it streams; if the function dies,
the lease runs out, the answer counts as stalled and the owner may retry it.

A provider that is rate-limited or overloaded before the first token is
asked again after its Retry-After (or a backoff), the lease renewed while
waiting, as long as that call could hang for a whole read timeout and still
end by the deadline; once text has streamed, a failure (a dropped connection,
a silence longer than the read timeout) keeps it and ends the run, since a
second attempt would start a different answer. An answer still streaming
near the function's time limit is cut off and kept, marked as such.

What a client reads about a failure or a wait (`error`, `provider_wait.reason`)
is a fixed headline (providers/headlines.py); the provider's words go to the log only.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from cardchat import providers
from cardchat.access.own_keys import base_url_for, run_key
from cardchat.access.ratelimit import reconcile
from cardchat.chat.history_window import ContextTooSmall, window_for
from cardchat.generation import completion, look_further, run_log, turn_context
from cardchat.generation.chunk_writer import StreamWriter, WriterFailed
from cardchat.generation.run_state import AfterAnswer, Run
from cardchat.ids import new_run_id
from cardchat.llm.models import spec_of
from cardchat.providers.base import ProviderError, read_timeout_s
from cardchat.providers.headlines import headline
from cardchat.repo import chats as chats_repo
from cardchat.repo import messages as messages_repo
from cardchat.schema.documents import GENERATE_TIMEOUT_S, Chat
from cardchat.schema.documents import now as utc_now
from cardchat.schema.messages import FinalAnswer, Usage

if TYPE_CHECKING:
    from cardchat.repo.db import Db

__all__ = ["generate", "lease_seconds"]

log = logging.getLogger(__name__)

LEASE_ENV = "CARDCHAT_LEASE_SECONDS"
DEFAULT_LEASE = 30.0
GENERIC_ERROR = headline(None, "internal")
#: Calls per answer to a provider that fails before its first token.
PROVIDER_ATTEMPTS = 4
#: Backoff before the 2nd, 3rd, 4th call when the provider names no wait.
PROVIDER_BACKOFF_S = (2.0, 6.0, 18.0)
#: A provider asking for a longer wait than this fails the answer at once:
#: the user is watching, and may retry later themselves.
PROVIDER_MAX_WAIT_S = 30.0
#: Seconds from taking the run after which an answer still streaming is cut off
#: and kept: the final write and clean-up need a few of generateAnswer's.
DEADLINE_S = float(GENERATE_TIMEOUT_S - 40)
#: ChatMessage.cut_off for an answer stopped at DEADLINE_S.
CUT_OFF_TIME = "time_limit"


def lease_seconds() -> float:
    raw = os.environ.get(LEASE_ENV, "").strip()
    if not raw:
        return DEFAULT_LEASE
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if value <= 0:
        raise ValueError(f"{LEASE_ENV} must be a positive number of seconds, not {raw!r}")
    return value


def generate(
    db: Db,
    message_id: str,
    *,
    now: Callable[[], datetime] = utc_now,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    lease: float | None = None,
    deadline: float = DEADLINE_S,
    then: AfterAnswer | None = None,
) -> str:
    """Generate the answer of a `ready` message. Returns the status it ended
    in: "complete" or "failed"; "skipped" when another delivery owns it or it
    was not ready; "superseded" when the run lost its lease to a retry. `then`: what a complete
    answer does next, handed what the run holds (answer_runs.run_answer passes answered.after_answer)."""
    lease = lease_seconds() if lease is None else lease
    run_id = new_run_id()
    msg = messages_repo.take_run(db, message_id, run_id, lambda: now() + timedelta(seconds=lease))
    if msg is None:
        return "skipped"
    run = Run(db, message_id, msg, run_id, lease, now, sleep)
    run.then = then
    run.clock, run.started = clock, clock()
    try:
        refused = _prepare(run)
        if refused is not None:
            return refused
        _stream_with_retries(run, deadline)
        kept = run.search.keep(run.background) if run.search is not None else None
        if kept is not None:  # the cards its searches found join the stored context
            run.background, run.background_tokens, run.private = kept
        return completion.complete(run)
    except ProviderError as e:
        _stop(run.writer)
        run_log.provider_failure(message_id, e, "the answer failed")
        return _fail(run, e.message, "".join(run.parts))
    except (messages_repo.LostOwnership, WriterFailed) as e:
        _stop(run.writer)
        if isinstance(e, messages_repo.LostOwnership) or isinstance(e.__cause__, messages_repo.LostOwnership):
            return _superseded(run)
        run_log.unexpected(message_id, e.__cause__ or e, run.secrets, run.background)
        return _fail(run, GENERIC_ERROR, "".join(run.parts))
    except Exception as e:
        _stop(run.writer)
        run_log.unexpected(message_id, e, run.secrets, run.background)
        return _fail(run, GENERIC_ERROR, "".join(run.parts))
    finally:
        _settle(run)


def _prepare(run: Run) -> str | None:
    """Model, background and window of the message taken; the status the
    run ends in when it cannot start (unknown model, context too small)."""
    msg = run.msg
    chat = run.chat = Chat.from_dict(chats_repo.get_chat(run.db, msg.chat) or {})
    run.owner = chat.owner or None
    spec = spec_of(msg.model or chat.model)
    if spec is None:
        log.error("generate %s: unknown model %r", run.message_id, str(msg.model)[:60])
        return _fail(run, headline(None, "unknown_model"), "")
    run.spec = spec
    run.api_key = run_key(run.db, chat.owner, spec, msg.own_key)
    run.base_url = base_url_for(run.db, chat.owner, spec)
    run.secrets = [os.environ.get(spec.key_env) if spec.key_env else None, run.api_key]
    if msg.attempts > 1:
        messages_repo.delete_chunks(run.db, run.message_id)  # left by a run that died
    run.history = messages_repo.chat_messages(run.db, msg.chat)
    history = [m for _, m in run.history]
    # cards its owner may no longer read are withdrawn (recheck.py), then a follow-up's cards added
    index = msg.message_index
    context = turn_context.context_for(run.db, msg.chat, chat, history, index, spec)
    run.background, run.background_tokens, run.private = context.text, context.tokens, context.private
    try:
        run.window = window_for(history, index, run.background_tokens, spec)
    except ContextTooSmall as e:
        log.info("generate %s: %s", run.message_id, e)
        return _fail(run, headline(spec.provider, "context_too_long"), "")
    if chat.look_further:
        held = (run.background, run.background_tokens)
        run.search = look_further.for_answer(run.db, msg.chat, run.private, held, spec, index, run.window.messages)
    run.writer = StreamWriter(run.write_chunk, run.renew, renew_every=run.lease / 3, clock=run.clock)
    return None


def _stream_with_retries(run: Run, deadline: float) -> None:
    """Stream the answer into the chunk writer, calling the provider again
    after a refusal before the first token; cut off at `deadline`."""
    assert run.spec is not None and run.window is not None and run.writer is not None
    while True:
        window = run.window
        deltas = providers.stream(
            run.spec.id, window.messages, run.background, window.max_tokens, run.api_key, run.base_url, run.search
        )
        try:
            for item in deltas:
                if isinstance(item, Usage):
                    run.usage = item
                    continue
                if run.ttft is None:
                    run.ttft = run.elapsed()
                run.parts.append(item)
                run.writer.put(item)
                if run.elapsed() > deadline:
                    run.cut_off = CUT_OFF_TIME
                    break
            return
        except ProviderError as e:
            wait = None if run.parts else _retry_wait(e, run.retries)
            # called again only if that call may hang for a whole read timeout and still end by the deadline
            if wait is None or run.elapsed() + wait + read_timeout_s() > deadline:
                raise
            run_log.provider_failure(run.message_id, e, f"calling again in {wait:.1f} s")
            until = run.now() + timedelta(seconds=wait)
            run.renew({"provider_wait": {"reason": e.message, "call": run.retries + 2, "until": until}})
            _wait_renewing(run, wait)
            run.retries += 1
        finally:
            deltas.close()  # a run that stops early hangs up on the provider at once


def _retry_wait(e: ProviderError, retries: int) -> float | None:
    """Seconds to wait before calling the provider again, None to give up."""
    if not e.retryable or retries + 1 >= PROVIDER_ATTEMPTS:
        return None
    wait = PROVIDER_BACKOFF_S[min(retries, len(PROVIDER_BACKOFF_S) - 1)] if e.retry_after is None else e.retry_after
    return wait if wait <= PROVIDER_MAX_WAIT_S else None


def _wait_renewing(run: Run, seconds: float) -> None:
    """Sleep `seconds`, renewing the lease often enough that the answer never
    looks stalled meanwhile (and failing if a retry has taken it over)."""
    steps = max(1, math.ceil(seconds / (run.lease / 3)))
    for _ in range(steps):
        run.sleep(seconds / steps)
        run.renew()


def _stop(writer: StreamWriter | None) -> None:
    """Stop the chunk writer without flushing: the chunks are deleted next,
    and a write still in flight must land before that delete."""
    if writer is not None:
        writer.close(flush=False)


def _fail(run: Run, error: str, partial: str) -> str:
    try:
        run.finish(FinalAnswer.failed(error, partial))
    except messages_repo.LostOwnership:
        return _superseded(run)
    except Exception as e:  # the lease runs out and the answer shows as stalled
        log.error("generate %s: could not record the failure: %s", run.message_id, type(e).__name__)
        return "failed"
    messages_repo.delete_chunks(run.db, run.message_id)
    return "failed"


def _superseded(run: Run) -> str:
    """Another run owns the message now, so its chunks are not ours to
    delete, unless the message itself is gone (chat deleted mid-answer)."""
    if messages_repo.get_message(run.db, run.message_id) is None:
        messages_repo.delete_chunks(run.db, run.message_id)
    log.info("generate %s: run %s lost ownership", run.message_id, run.run_id)
    return "superseded"


def _settle(run: Run) -> None:
    """Replace this attempt's token reservation by what it spent, whatever
    way the run ended; ratelimit.settle makes a repeat harmless."""
    if not run.owner:
        return
    try:
        attempt = run.msg.attempts
        reconcile(run.db, run.owner, run.message_id, attempt, run.spent(), run.now())
    except Exception as e:  # the answer is written; a missed count must not fail it (the reservation expires)
        log.error("generate %s: could not settle tokens: %s", run.message_id, type(e).__name__)
