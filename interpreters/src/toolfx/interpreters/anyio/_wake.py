"""Waking a task of the running anyio loop from a signal watcher, whichever thread cancels."""

from __future__ import annotations

import threading
from collections.abc import Callable

import anyio
import anyio.lowlevel

__all__ = ["in_loop"]


def in_loop(wake: Callable[[], None]) -> Callable[[], None]:
    """A signal watcher that runs `wake` (which must not raise) in the current loop's thread.

    Called in the loop's thread it runs `wake` at once; called in any other thread it
    schedules `wake` into the loop and returns without waiting, so a cancel() never blocks
    and never deadlocks. If the loop has finished, the waiter is gone and nothing is done.
    """
    loop_thread = threading.get_ident()
    token = anyio.lowlevel.current_token()

    def watcher() -> None:
        if threading.get_ident() == loop_thread:
            wake()
            return
        try:
            token.backend_class.run_sync_soon(wake, (), token.native_token)
        except anyio.RunFinishedError:
            return

    return watcher
