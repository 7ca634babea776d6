"""The rolling pool behind `AnyioRuntime.gather`: `limit` workers take the thunks in order.

On asyncio the workers are native tasks in an `asyncio.TaskGroup` (anyio's task group costs
about half as much again as the sleeps themselves for a thousand short tasks); on trio they are
an anyio task group. Either way the first failure stops the other workers, which are awaited,
and is then raised as it was, not wrapped in an exception group.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Final, Generic, TypeVar, final

import anyio

__all__ = ["PASSED_ON", "on_asyncio", "run_pool"]

T = TypeVar("T")

PASSED_ON: Final = (Exception, KeyboardInterrupt, SystemExit)
"""What a pool or a deadline holds while its tasks wind down, then raises unchanged."""


@final
class _Pool(Generic[T]):
    __slots__ = ("failures", "pending", "results", "stop")

    def __init__(self, thunks: Sequence[Callable[[], Awaitable[T]]]) -> None:
        self.pending = iter(enumerate(thunks))  # shared: each thunk is taken by one worker
        self.results: dict[int, T] = {}
        self.failures: list[BaseException] = []
        self.stop: Callable[[], None] = lambda: None

    async def worker(self) -> None:
        for index, thunk in self.pending:
            if self.failures:  # a thunk swallowed the cancellation: start no more
                return
            try:
                self.results[index] = await thunk()
            except PASSED_ON as error:
                if not self.failures:
                    self.failures.append(error)
                    self.stop()
                return


async def run_pool(thunks: Sequence[Callable[[], Awaitable[T]]], limit: int) -> list[T]:
    """Run the thunks with at most `limit` at once; results in their order."""
    pool = _Pool(thunks)
    workers = min(limit, len(thunks))
    if on_asyncio():
        async with asyncio.TaskGroup() as native:
            tasks = [native.create_task(pool.worker()) for _ in range(workers)]
            pool.stop = lambda: _cancel_others(tasks)
    else:
        async with anyio.create_task_group() as group:
            pool.stop = group.cancel_scope.cancel
            for _ in range(workers):
                group.start_soon(pool.worker)
    if pool.failures:
        raise pool.failures[0]
    return [pool.results[index] for index in range(len(thunks))]


def on_asyncio() -> bool:
    """Whether the running loop is asyncio's (where native tasks and sleeps may be used)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _cancel_others(tasks: list[asyncio.Task[None]]) -> None:
    current = asyncio.current_task()
    for task in tasks:
        if task is not current:
            task.cancel()
