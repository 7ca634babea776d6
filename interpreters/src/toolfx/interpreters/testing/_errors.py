"""How a deterministic run ends when it cannot go on: a deadlock, a foreign await, a crash."""

from __future__ import annotations

from collections.abc import Sequence

from toolfx.interpreters._foreign import ForeignAwaitError

__all__ = ["Crashed", "Deadlock", "DeterministicForeignAwaitError"]


class Deadlock(RuntimeError):
    """Nothing can run and no timer is pending, yet the program has not finished."""

    def __init__(
        self, time: float, step: int, blocked: Sequence[tuple[int, str]], hung: Sequence[int]
    ) -> None:
        hung_part = ", ".join(f"task {task}" for task in hung) or "none"
        waits = "; ".join(f"task {task} {what}" for task, what in blocked)
        super().__init__(
            f"deadlock in the deterministic interpreter at virtual time {time:g}s (after step"
            f" {step}): nothing can run and no timer is pending. Hung tasks: {hung_part}."
            f" Blocked: {waits}"
        )
        self.time = time
        self.step = step
        self.blocked: tuple[tuple[int, str], ...] = tuple(blocked)
        self.hung: tuple[int, ...] = tuple(hung)


class DeterministicForeignAwaitError(ForeignAwaitError):
    """A defect: a program run by `DeterministicInterpreter` yielded something that is no trap."""


class Crashed(Exception):
    """The process a deterministic run stands for died: a `CrashAt` step, or a mortal store's own
    crash point (a `MemoryJournal`'s `CrashAtAppend`)."""

    def __init__(self, step: int, cause: str) -> None:
        super().__init__(f"the process crashed at step {step} of the deterministic run: {cause}")
        self.step = step
        self.cause = cause
