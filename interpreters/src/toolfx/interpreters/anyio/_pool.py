"""The rolling pool behind `AnyioRuntime.gather`: `limit` workers take the thunks in order.

On asyncio the workers are native tasks in an `asyncio.TaskGroup` (anyio's task group costs
about half as much again as the sleeps themselves for a thousand short tasks), and with room for
every thunk each thunk is its own task, no worker in between; on trio they are a trio nursery
(`_trio.py`). Either way the first failure stops the other workers, which are awaited,
and is then raised as it was, not wrapped in an exception group.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, Final, Generic, TypeVar, final

from toolfx.core.tools import CALL_FAILURES

__all__ = ["PASSED_ON", "on_asyncio", "run_pool"]

T = TypeVar("T")

PASSED_ON: Final[tuple[type[BaseException], ...]] = (*CALL_FAILURES, KeyboardInterrupt, SystemExit)
"""What a pool or a deadline holds while its tasks wind down, then raises unchanged (a
`PermissionDeclined` too: it is a BaseException so that tool bodies cannot swallow it)."""


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
    workers = min(limit, len(thunks))
    asyncio_loop = on_asyncio()
    if asyncio_loop and workers == len(thunks):
        return await _all_at_once(thunks)
    pool = _Pool(thunks)
    if asyncio_loop:
        async with asyncio.TaskGroup() as native:
            tasks = [native.create_task(pool.worker()) for _ in range(workers)]
            pool.stop = lambda: _cancel_others(tasks)
    else:  # anyio's other backend: trio
        from toolfx.interpreters.anyio._trio import task_nursery  # noqa: PLC0415 (trio only)

        async with task_nursery() as nursery:
            pool.stop = nursery.cancel_scope.cancel
            for _ in range(workers):
                nursery.start_soon(pool.worker)
    if pool.failures:
        raise pool.failures[0]
    return [pool.results[index] for index in range(len(thunks))]


async def _all_at_once(thunks: Sequence[Callable[[], Awaitable[T]]]) -> list[T]:
    """Every thunk its own native task (no worker in between); the first failure as it was."""
    failure: BaseException | None = None
    try:
        async with asyncio.TaskGroup() as native:
            tasks = [native.create_task(_coroutine(thunk())) for thunk in thunks]
    except BaseExceptionGroup as group:  # the failures in finishing order; the others cancelled
        failure = group.exceptions[0]
    if failure is not None:
        raise failure
    return [task.result() for task in tasks]


def _coroutine(awaitable: Awaitable[T]) -> Coroutine[Any, Any, T]:
    if inspect.iscoroutine(awaitable):
        return awaitable
    return _await(awaitable)


async def _await(awaitable: Awaitable[T]) -> T:
    return await awaitable


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
