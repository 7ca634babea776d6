"""The deterministic scheduler's own state: the tasks it drives and what a parked one waits for."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, final

from toolfx.interpreters.testing._clock import Timer
from toolfx.interpreters.testing._traps import Trap

__all__ = ["Task", "Wait"]


@final
class Wait:
    """One suspension of a parked task: what it waits for and the wake-ups to undo on waking."""

    __slots__ = ("joining", "timer", "unsubscribe", "what")

    def __init__(self, what: str, joining: tuple[int, ...] = ()) -> None:
        self.what: str = what
        self.joining: tuple[int, ...] = joining
        self.timer: Timer | None = None
        self.unsubscribe: Callable[[], None] | None = None

    def dispose(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.unsubscribe is not None:
            self.unsubscribe()


@final
class Task:
    """A coroutine the scheduler drives, with what it will be resumed with next."""

    __slots__ = (
        "coroutine",
        "error",
        "finished",
        "finished_order",
        "hung_at",
        "id",
        "name",
        "next_error",
        "next_value",
        "parent",
        "result",
        "trap",
        "wait",
    )

    def __init__(
        self, task_id: int, name: str, coroutine: Coroutine[Any, Any, Any], parent: int | None
    ) -> None:
        self.id: int = task_id
        self.name: str = name
        self.coroutine: Coroutine[Any, Any, Any] = coroutine
        self.parent: int | None = parent
        self.next_value: object = None
        self.next_error: BaseException | None = None
        self.trap: Trap | None = None
        self.wait: Wait | None = None
        self.hung_at: int | None = None
        self.finished: bool = False
        self.finished_order: int = 0
        self.result: Any = None
        self.error: BaseException | None = None
