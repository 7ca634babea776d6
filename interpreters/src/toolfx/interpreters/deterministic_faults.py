"""Faults the deterministic scheduler injects at numbered steps: raise, hang or cancel."""

from __future__ import annotations

from dataclasses import dataclass
from typing import final

from toolfx.core.cancel import CALLER_CANCELLED, CancelSignal

__all__ = ["CancelAt", "Fault", "HangAt", "RaiseAt"]


@final
@dataclass(frozen=True, slots=True)
class RaiseAt:
    """At scheduler step `step`, throw `error` into the task picked to run (not resuming it)."""

    step: int
    error: Exception


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


Fault = RaiseAt | HangAt | CancelAt
"""A fault the scheduler injects at one step (steps count task resumptions, from 1)."""
