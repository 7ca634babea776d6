"""What the anyio interpreter takes from trio itself, on trio only (never imported on asyncio).

Deadlines: trio has no timer callbacks, so a run's `LoopDeadlines` get a system task (made on
first use) that sleeps in a cancel scope whose deadline is the earliest pending one; arming moves
that deadline, and when it passes the task calls the deadlines back. Gather: a trio nursery, not
anyio's task group around one (which adds a task handle and a coroutine per task), whose
cancellation leaves as one `Cancelled`, as anyio's does.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Final, final

import trio
import trio.lowlevel

from toolfx.interpreters.anyio._deadlines import LoopDeadlines

__all__ = ["TrioTimer", "task_nursery", "trio_deadlines"]


@final
class TrioTimer:
    """A trio run's clock and the one service task that fires at the armed time."""

    __slots__ = ("_expire", "_scope", "_when")

    def __init__(self) -> None:
        self._when = math.inf
        self._expire: Callable[[], None] | None = None
        self._scope: trio.CancelScope | None = None
        trio.lowlevel.spawn_system_task(self._serve, name="toolfx deadlines")

    def now(self) -> float:
        """The run's clock."""
        return trio.current_time()

    def arm(self, when: float, expire: Callable[[], None]) -> None:
        """Call `expire` at `when`: the service task's scope now ends then."""
        self._when, self._expire = when, expire
        if self._scope is not None:
            self._scope.deadline = when

    async def _serve(self) -> None:
        """Sleep until the armed time, fire, and again; the run's end cancels it."""
        while True:
            with trio.CancelScope(deadline=self._when) as scope:
                self._scope = scope
                await trio.sleep_forever()
            self._scope = None
            expire, self._expire, self._when = self._expire, None, math.inf
            if expire is not None:
                expire()


_DEADLINES: Final = trio.lowlevel.RunVar[LoopDeadlines]("toolfx_deadlines")


def trio_deadlines() -> LoopDeadlines:
    """The deadlines of the running trio run (made, with their service task, on first use)."""
    try:
        return _DEADLINES.get()
    except LookupError:
        deadlines = LoopDeadlines(TrioTimer())
        _DEADLINES.set(deadlines)
        return deadlines


@asynccontextmanager
async def task_nursery() -> AsyncIterator[trio.Nursery]:
    """A trio nursery; when only cancellation leaves it, that is one `Cancelled`, not a group."""
    try:
        async with trio.open_nursery() as nursery:
            yield nursery
    except BaseExceptionGroup as group:
        if group.split(trio.Cancelled)[1] is not None:
            raise
        first: BaseException = group
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None
