"""The process-wide pool of Monty workers every `MontyEngine` without its own pool shares.

Started on first use (so making a runtime or an engine costs nothing), once even when threads
race for it, and closed at interpreter exit. Sized for programs that mostly wait on their tool
calls: a paused program keeps its worker, so the pool allows more workers than cores, and a
checkout waits a bounded time for one (a program that cannot get a worker fails `unavailable`
rather than waiting forever behind programs that wait on it).

Time limits are each program's (`CodeLimits.seconds` as Monty's feed duration limit); the pool
adds its backstop: a worker still computing `FEED_GRACE` seconds past its program's limit is
killed. It sets no `request_timeout`, which would cap every program's turns alike.
"""

from __future__ import annotations

import atexit
import threading
from typing import Final, final

from pydantic_monty import Monty

__all__ = [
    "CHECKOUT_TURN",
    "CHECKOUT_TURNS",
    "FEED_GRACE",
    "MAX_WORKERS",
    "SharedPool",
    "shared_pool",
]

MAX_WORKERS: Final = 16
"""Workers the shared pool runs at most (one per program running or paused)."""
CHECKOUT_TURN: Final = 0.5
"""Seconds of one turn of waiting for a free worker of the shared pool (its checkout timeout)."""
CHECKOUT_TURNS: Final = 120
"""Turns a program waits for a free worker (a minute on the shared pool), seeing a `stop`
between any two."""
FEED_GRACE: Final = 1.0
"""Seconds past a program's time limit before the shared pool kills its worker."""


@final
class SharedPool:
    """A pool opened on first use, once, by whichever thread asks first; closed at exit."""

    __slots__ = ("_lock", "_pool")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: Monty | None = None

    def get(self) -> Monty:
        """The open pool, started now if this is the first use."""
        with self._lock:
            if self._pool is None:
                pool = Monty(
                    min_processes=1,
                    max_processes=MAX_WORKERS,
                    checkout_timeout=CHECKOUT_TURN,
                    feed_duration_limit_grace=FEED_GRACE,
                )
                pool.__enter__()
                atexit.register(pool.__exit__, None, None, None)
                self._pool = pool
            return self._pool


_SHARED: Final = SharedPool()


def shared_pool() -> Monty:
    """The process-wide pool, started on first use."""
    return _SHARED.get()
