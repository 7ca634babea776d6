"""The program's clock and sleeps, answered from the runtime's.

Monty asks the host for every clock read (`time.time`, `time.monotonic`, `time.perf_counter`
and the rest arrive as `time.time`; `datetime.now` and `date.today` by name) when the session's
`os_policy` routes the clock to it. The runtime answers with its monotonic seconds, which may be
virtual; the program wants epoch seconds. A `ProgramClock` takes the wall clock once, at the
program's first read, and moves it by the runtime's monotonic seconds since then: under the
deterministic interpreter virtual time moves the program's clock, and every clock the program
reads is one clock (monotonic and perf_counter read the same epoch seconds, which is allowed).
"""

from __future__ import annotations

import datetime
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, final

__all__ = ["CLOCK_FUNCTIONS", "SLEEP_FUNCTIONS", "ClockRead", "ProgramClock", "sleep_seconds"]


@final
@dataclass(frozen=True, slots=True)
class ClockRead:
    """A clock read waiting for the runtime's seconds: which Monty function asked, its args."""

    function: str
    """`time.time`, `datetime.now` or `date.today`."""
    args: tuple[object, ...]


CLOCK_FUNCTIONS: Final = frozenset({"time.time", "datetime.now", "date.today"})
SLEEP_FUNCTIONS: Final = frozenset({"time.sleep", "asyncio.sleep"})
"""The OS functions that read the clock, and those that sleep, under `call_host` policies."""


@final
class ProgramClock:
    """One program's wall clock: a base taken at its first read, moved by monotonic seconds."""

    __slots__ = ("_base", "_wall")

    def __init__(self, wall: Callable[[], float] = time.time) -> None:
        """`wall` gives the epoch seconds the program's clock starts from (read once)."""
        self._wall = wall
        self._base: tuple[float, float] | None = None

    def epoch(self, monotonic: float) -> float:
        """Epoch seconds for the runtime's `monotonic` seconds."""
        if self._base is None:
            self._base = (self._wall(), monotonic)
        wall, start = self._base
        return wall + (monotonic - start)

    def answer(self, read: ClockRead, monotonic: float) -> object:
        """What `read` returns in the program (its timezone is UTC: naive times are UTC)."""
        epoch = self.epoch(monotonic)
        utc = datetime.datetime.fromtimestamp(epoch, datetime.UTC)
        if read.function == "date.today":
            return utc.date()
        if read.function == "datetime.now":
            zone = read.args[0] if read.args else None
            if isinstance(zone, datetime.tzinfo):
                return utc.astimezone(zone)
            return utc.replace(tzinfo=None)
        return epoch


def sleep_seconds(args: tuple[object, ...]) -> float | str:
    """The seconds a sleep call asks for, or why they are not a valid sleep."""
    match args:
        case (int() | float() as seconds,) if not isinstance(seconds, bool):
            if math.isnan(seconds) or seconds < 0:
                return f"sleep length must be a non-negative number, not {seconds!r}"
            if math.isinf(seconds):
                return "sleep length must be finite"
            return float(seconds)
        case _:
            return f"sleep takes one number of seconds, not {args!r}"
