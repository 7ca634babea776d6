"""A remote runner on this machine: each body in a child process, a bounded number at once.

For tests and single machines without a cluster: the same worker code and the same cancel, kill
and lost-worker semantics as a cluster runner, with local processes as the workers.
"""

from __future__ import annotations

import functools
import os
import threading
from typing import Final, final

from toolfx.core.runtime import (
    CALLER_CANCELLED,
    CancelSignal,
    RemoteNotStarted,
    RemoteOutcome,
    RemoteRequest,
    RemoteRunner,
    Runtime,
)
from toolfx.interpreters.remote._child import run_in_child
from toolfx.interpreters.remote._worker import ProvidedTools

__all__ = ["ProcessRemote"]

_WAIT_TURN: Final = 0.05
"""Seconds between two looks at the signal while a call waits for a free worker slot."""


@final
class ProcessRemote(RemoteRunner):
    """Runs each remote body in a new child process of this machine, at most `workers` at once
    (default: one per CPU); tools are found as `ProvidedTools` or by their placement's reference."""

    __slots__ = ("_slots", "_source")

    def __init__(self, source: ProvidedTools | None = None, *, workers: int | None = None) -> None:
        count = (os.cpu_count() or 1) if workers is None else workers
        if type(count) is not int or count < 1:
            raise ValueError(f"ProcessRemote needs at least one worker, not {workers!r}")
        self._source = source
        self._slots = threading.BoundedSemaphore(count)

    async def run(
        self, request: RemoteRequest, signal: CancelSignal, runtime: Runtime
    ) -> RemoteOutcome:
        """Run the body in a child process (waited for through `runtime.run_blocking`)."""
        return await runtime.run_blocking(functools.partial(self._run, request, signal))

    def _run(self, request: RemoteRequest, signal: CancelSignal) -> RemoteOutcome:
        free = threading.Event()
        unsubscribe = signal.on_cancel(free.set)
        try:
            while not self._slots.acquire(timeout=_WAIT_TURN):
                if free.is_set():
                    return RemoteNotStarted(signal.reason or CALLER_CANCELLED)
        finally:
            unsubscribe()
        try:
            return run_in_child(request, self._source, signal, "a local worker process")
        finally:
            self._slots.release()
