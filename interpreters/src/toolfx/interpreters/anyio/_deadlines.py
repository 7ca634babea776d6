"""Deadlines on an event loop behind one timer: no timer handle, task or task group per call.

Each loop has one `LoopDeadlines`: a heap of pending deadlines and one armed timer for the
earliest. Adding a deadline no earlier than the armed one (calls with the same timeout) only
pushes onto the heap; a finished call marks its entry done (O(1)), and done entries are dropped
when they reach the top or when they outnumber the pending ones. The timer is the loop's own:
asyncio's `call_at` here (`AsyncioTimer`), one service task per trio run (`_trio.py`).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import weakref
from collections.abc import Callable
from typing import Final, Protocol, final

__all__ = ["AsyncioTimer", "Deadline", "LoopDeadlines", "Timer", "deadlines_of"]

_COMPACT_AT: Final = 1_024
"""Done entries kept at least before the heap is rebuilt without them."""


@final
class Deadline:
    """One pending deadline: `cancel()` when the work finished first."""

    __slots__ = ("_fire", "_owner")

    def __init__(self, owner: LoopDeadlines, fire: Callable[[], None]) -> None:
        self._owner = owner
        self._fire: Callable[[], None] | None = fire

    def cancel(self) -> None:
        """The work finished: the deadline will not fire."""
        if self._fire is not None:
            self._fire = None
            self._owner.done()

    def expire(self) -> None:
        """Fire now (the timer's side), once."""
        fire, self._fire = self._fire, None
        if fire is not None:
            fire()

    @property
    def pending(self) -> bool:
        """Whether it has neither fired nor been cancelled."""
        return self._fire is not None


class Timer(Protocol):
    """One loop's clock, and its one timer."""

    def now(self) -> float:
        """The loop's clock."""
        ...

    def arm(self, when: float, expire: Callable[[], None]) -> None:
        """Call `expire` (which must not raise) at `when`, instead of what was armed before."""
        ...


@final
class AsyncioTimer:
    """An asyncio loop's clock and one `call_at` handle."""

    __slots__ = ("_handle", "_loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._handle: asyncio.TimerHandle | None = None

    def now(self) -> float:
        """The loop's clock."""
        return self._loop.time()

    def arm(self, when: float, expire: Callable[[], None]) -> None:
        """Call `expire` at `when` (the handle armed before is cancelled)."""
        if self._handle is not None:
            self._handle.cancel()
        self._handle = self._loop.call_at(when, expire)


@final
class LoopDeadlines:
    """The pending deadlines of one loop and the timer armed for the earliest."""

    __slots__ = ("__weakref__", "_armed_at", "_done", "_heap", "_order", "_timer")

    def __init__(self, timer: Timer) -> None:
        self._timer = timer
        self._heap: list[tuple[float, int, Deadline]] = []
        self._order = itertools.count()
        self._armed_at: float | None = None  # None: not armed
        self._done = 0

    def __len__(self) -> int:
        """The entries kept: the pending ones, and done ones not dropped yet."""
        return len(self._heap)

    def add(self, delay: float, fire: Callable[[], None]) -> Deadline:
        """Call `fire` (which must not raise) in `delay` seconds unless cancelled first."""
        when = self._timer.now() + delay
        deadline = Deadline(self, fire)
        heapq.heappush(self._heap, (when, next(self._order), deadline))
        if self._armed_at is None or when < self._armed_at:
            self._arm(when)
        return deadline

    def done(self) -> None:
        """One deadline was cancelled: rebuild the heap when the done ones are most of it."""
        self._done += 1
        if self._done >= _COMPACT_AT and self._done * 2 > len(self._heap):
            self._heap = [entry for entry in self._heap if entry[2].pending]
            heapq.heapify(self._heap)
            self._done = 0

    def _arm(self, when: float) -> None:
        self._timer.arm(when, self._expire)
        self._armed_at = when

    def _expire(self) -> None:
        self._armed_at = None
        heap, now = self._heap, self._timer.now()
        while heap and (heap[0][0] <= now or not heap[0][2].pending):
            _, _, deadline = heapq.heappop(heap)
            if deadline.pending:
                deadline.expire()
            else:
                self._done = max(self._done - 1, 0)
        if heap:
            self._arm(heap[0][0])


_LOOPS: Final = weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopDeadlines]()


def deadlines_of(loop: asyncio.AbstractEventLoop) -> LoopDeadlines:
    """The deadlines of asyncio `loop` (made on first use, gone with the loop)."""
    deadlines = _LOOPS.get(loop)
    if deadlines is None:
        deadlines = _LOOPS[loop] = LoopDeadlines(AsyncioTimer(loop))
    return deadlines
