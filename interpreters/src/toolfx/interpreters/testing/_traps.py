"""Traps: the only objects a task may yield to the deterministic scheduler."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import final

from toolfx.core.runtime import CancelSignal

__all__ = ["Approve", "Checkpoint", "Join", "Sleep", "Trap"]


@final
@dataclass(frozen=True, slots=True)
class Checkpoint:
    """Trap: a reschedule point; the task stays runnable and the seed picks who runs next."""

    def __await__(self) -> Generator[Trap, object, None]:
        yield self


@final
@dataclass(frozen=True, slots=True)
class Sleep:
    """Trap: park for `seconds` of virtual time; raise `Cancelled` when `signal` is set first."""

    seconds: float
    signal: CancelSignal | None

    def __await__(self) -> Generator[Trap, object, None]:
        yield self


@final
@dataclass(frozen=True, slots=True)
class Join:
    """Trap: park until one of `tasks` has finished; resume with the id of the first to finish."""

    tasks: tuple[int, ...]

    def __await__(self) -> Generator[Trap, object, int]:
        finished = yield self
        if not isinstance(finished, int):
            raise TypeError(f"a Join trap was resumed with {finished!r}, not a task id")
        return finished


@final
@dataclass(frozen=True, slots=True)
class Approve:
    """Trap: a reschedule point while the approval service answers; `signal` reaches it if hung."""

    summary: str
    signal: CancelSignal

    def __await__(self) -> Generator[Trap, object, None]:
        yield self


Trap = Checkpoint | Sleep | Join | Approve
"""Every request a task can make of the scheduler."""
