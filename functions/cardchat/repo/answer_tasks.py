"""Cloud Tasks adapter: asking for answers' runs.

Each answer made `ready` (a new turn, a branch, a retry, the sweeper's re-drive)
gets one task on generateAnswer's queue: the domain step that made it ready asks
for it right after its commit landed (chat/turns.start_answers, generation/sweeper.py).
Tasks are dispatched side by side, up to the queue's limit, and
never wait behind the Firestore events of bulk work (an import's embedCard
events), which the Firestore emulator delivers one at a time; the run's own
writes to the message fire nothing.

A task that is lost (the enqueue failing, the instance dying before it) loses
no answer: the stub holds READY_LEASE, and the sweeper re-drives it when that
runs out. A task delivered twice runs one answer: the engine's take_run lets one
run through.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from cardchat.schema.documents import GENERATE_TIMEOUT_S, REGION

if TYPE_CHECKING:
    from google.cloud import firestore

log = logging.getLogger(__name__)

#: The task-queue function that runs answers (endpoints/triggers.py), and its queue's name.
QUEUE = "generateAnswer"
#: Answers one generateAnswer instance runs side by side (its `concurrency`): an answer mostly waits
#: on the provider's stream (docs/scale.md; tests/generation/test_concurrent_answers.py runs this many
#: in one process).
ANSWERS_PER_INSTANCE = 8
#: Answers the queue dispatches at once: as many as generateAnswer's instances (endpoints/base.py's
#: max_instances) can run, so a dispatch never meets a full service; the rest wait in the queue, in order.
AT_ONCE = 20 * ANSWERS_PER_INSTANCE
#: Dispatches of one task: a run that fails as a whole (its instance lost) is tried again; a
#: second task for an answer already taken, streaming or done finds nothing to do.
ATTEMPTS = 3


def start(db: firestore.Client, message_ids: Iterable[str]) -> None:
    """One task per answer of `message_ids`, each `ready` in a commit that landed. Never raises:
    an answer whose task is not enqueued waits for the sweeper instead."""
    ids = list(message_ids)
    project = db.project
    if not ids:
        return
    if os.environ.get("FIRESTORE_EMULATOR_HOST") and not os.environ.get("CLOUD_TASKS_EMULATOR_HOST"):
        # Emulators without the Functions emulator (a benchmark's plain Firestore): nothing runs
        # tasks there, and the production queue must never be asked from them.
        log.debug("no task queue beside these emulators: %s wait for a run", ids)
        return
    for message_id in ids:
        try:
            # The body is the request a task-queue function reads: its payload under "data".
            _queue(project).enqueue({"data": {"message": message_id}}, _options())
        except Exception as err:  # any failure leaves the answer to the sweeper
            log.log(_level(err), "answer %s: its run was not enqueued (%s); the sweeper starts it", message_id, err)


def _level(err: Exception) -> int:
    """A queue the emulators do not have is a project serving no functions (a test's, a benchmark's):
    expected there; anywhere else a failed enqueue is worth a warning."""
    from firebase_admin import exceptions

    emulated = bool(os.environ.get("CLOUD_TASKS_EMULATOR_HOST"))
    return logging.DEBUG if emulated and isinstance(err, exceptions.NotFoundError) else logging.WARNING


def _options() -> Any:
    from firebase_admin.functions import TaskOptions

    # The queue's dispatch waits as long as the function may run, not Cloud Tasks' default 10 minutes'
    # guess nor the emulator's 60 s, after which a long answer's task would count as failed and run again.
    return TaskOptions(dispatch_deadline_seconds=GENERATE_TIMEOUT_S)


@functools.cache
def _queue(project: str) -> Any:
    """generateAnswer's queue in `project`, named in full: the default app may serve another project."""
    from firebase_admin import functions

    from cardchat.repo.admin_app import admin_app

    return functions.task_queue(f"projects/{project}/locations/{REGION}/functions/{QUEUE}", app=admin_app(project))
