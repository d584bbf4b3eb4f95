"""What an answer run writes to the server log when it fails: fixed headlines,
scrubbed provider words and code locations. Never the background, a key, or
an exception's raw text (which may quote either)."""

from __future__ import annotations

import logging
from pathlib import Path

from cardchat.providers.base import ProviderError
from cardchat.providers.scrub import scrub_error

log = logging.getLogger("cardchat.generation.engine")


def provider_failure(message_id: str, e: ProviderError, outcome: str) -> None:
    """The headline the client sees and the provider's own (already
    scrubbed) words, which only the log holds."""
    log.warning("generate %s: %s; %s. The provider said: %s", message_id, e.message, outcome, e.detail or "-")


def unexpected(message_id: str, exc: BaseException, secrets: list[str | None], background: str) -> None:
    """Type, scrubbed message and code locations: never the exception's raw
    text or locals, which may quote the background."""
    said = scrub_error(str(exc), secrets=secrets, background=background)
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append(f"{Path(code.co_filename).name}:{tb.tb_lineno} {code.co_name}")
        tb = tb.tb_next
    log.error("generate %s failed: %s: %s at %s", message_id, type(exc).__name__, said, " < ".join(reversed(frames)))
