"""Faults the deterministic scheduler injects at numbered steps: raise, raise into, hang, cancel,
crash; and what dies with the process when it crashes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, final

from toolfx.core.runtime import CALLER_CANCELLED, CancelSignal

__all__ = ["CancelAt", "CrashAt", "Fault", "HangAt", "Mortal", "RaiseAt", "RaiseInto"]


@final
@dataclass(frozen=True, slots=True)
class RaiseAt:
    """At scheduler step `step`, throw `error` into the task picked to run (not resuming it)."""

    step: int
    error: Exception


@final
@dataclass(frozen=True, slots=True)
class RaiseInto:
    """At `step`, before the scheduler picks, throw `error` into task `task` where it waits.

    Task 0 is the program's own (main) task. A parked task is woken from its wait (a sleep, a
    join of its children, a hang) and resumed with `error`; a runnable one is resumed with it
    instead of what it was to get. `error` may be an interrupt (a BaseException that is not an
    Exception). A task that is not waiting anywhere (not spawned yet, not yet at its first
    suspension, or finished) is left alone, and the trace says so.
    """

    step: int
    error: BaseException
    task: int = 0


@final
@dataclass(frozen=True, slots=True)
class HangAt:
    """At `step`, the picked task is not resumed: what it waited for is taken never to happen.

    Only a cancellation still reaches it: if it was in a sleep or an approval that watches a
    signal, setting that signal wakes it (as it would interrupt a wedged I/O wait). Otherwise it
    never runs again, and if the program needs it, `run` raises `Deadlock`.
    """

    step: int


@final
@dataclass(frozen=True, slots=True)
class CancelAt:
    """At `step`, before the scheduler picks a task, set `signal` with `reason`."""

    step: int
    signal: CancelSignal
    reason: str = CALLER_CANCELLED


@final
@dataclass(frozen=True, slots=True)
class CrashAt:
    """At `step`, before the scheduler picks a task, the process dies: nothing runs again.

    The interpreter's `mortal` stores (its journals) die first, so they keep exactly what they
    committed before the step and take no write after it; then `run` raises `Crashed`. The
    unfinished tasks are closed, which runs their `finally` blocks as Python must, but a dead
    store drops what they write and a file operation cannot run there (it would have to wait),
    so nothing they do outlives the process. The file system is the world: it keeps every
    effect made before the crash.
    """

    step: int


class Mortal(Protocol):
    """What a process keeps that dies with it (a journal): once dead it takes no more writes."""

    @property
    def death(self) -> str | None:
        """Why it died (None while it lives)."""
        ...

    def die(self, cause: str) -> None:
        """Die now, for `cause`: what it committed stays, any later write is dropped (dying
        again changes nothing)."""
        ...


Fault = RaiseAt | RaiseInto | HangAt | CancelAt | CrashAt
"""A fault the scheduler injects at one step (steps count task resumptions, from 1)."""
