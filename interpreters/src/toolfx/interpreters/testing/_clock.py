"""The deterministic scheduler's virtual clock: timers fired in time order, never a real sleep."""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from typing import final

__all__ = ["Timer", "VirtualClock", "delay"]


@final
class Timer:
    """An action at a virtual time; cancelled timers stay in the heap and are skipped."""

    __slots__ = ("action", "cancelled")

    def __init__(self, action: Callable[[], object]) -> None:
        self.action: Callable[[], object] = action
        self.cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


@final
class VirtualClock:
    """The virtual time and the timers set on it; it moves only to the next timer."""

    __slots__ = ("_now", "_sequence", "_timers")

    def __init__(self) -> None:
        self._timers: list[tuple[float, int, Timer]] = []
        self._sequence = itertools.count()
        self._now = 0.0

    @property
    def now(self) -> float:
        """The virtual time in seconds (0 at first)."""
        return self._now

    def timer_at(self, when: float, action: Callable[[], object]) -> Timer:
        """A timer for `when`; one at infinity is never set, so it never fires."""
        timer = Timer(action)
        if not math.isinf(when):
            heapq.heappush(self._timers, (when, next(self._sequence), timer))
        return timer

    def fire_due_timers(self) -> None:
        """Fire every timer due by now: the earliest first, ties in the order they were set."""
        while self._timers and self._timers[0][0] <= self._now:
            _, _, timer = heapq.heappop(self._timers)
            if not timer.cancelled:
                timer.action()

    def advance(self) -> bool:
        """Jump to the next live timer and fire what is due then; False if there is none."""
        while self._timers and self._timers[0][2].cancelled:
            heapq.heappop(self._timers)
        if not self._timers:
            return False
        self._now = max(self._now, self._timers[0][0])
        self.fire_due_timers()
        return True


def delay(seconds: float) -> float:
    """A delay in virtual seconds: negative and NaN mean at once."""
    return seconds if seconds > 0 else 0.0
