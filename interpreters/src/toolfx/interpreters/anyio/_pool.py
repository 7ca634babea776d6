"""The rolling pool behind `AnyioRuntime.gather`: `limit` workers take the thunks in order.

On asyncio the workers are native tasks in an `asyncio.TaskGroup` (anyio's task group costs
about half as much again as the sleeps themselves for a thousand short tasks), and with room for
every thunk each thunk is its own task, no worker in between, watched by one shared callback
(`_Gathering`); on trio they are a trio nursery
(`_trio.py`). Either way the first failure stops the other workers, which are awaited,
and is then raised as it was, not wrapped in an exception group.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable, Iterable, Sequence
from types import CoroutineType
from typing import Final, Generic, TypeVar, final

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
                pending = thunk()
                del thunk  # not held while its call runs (nor what it binds)
                self.results[index] = await pending
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
    """Every thunk its own native task (no worker, no wrapper coroutine in between), watched by
    one shared callback; the first failure as it was, once the others are cancelled and done."""
    gathering = _Gathering[T](asyncio.get_running_loop())
    try:
        gathering.start(thunks)
    except BaseException as error:  # a thunk failed to make its coroutine: as a task's failure
        gathering.failed(error)
    await gathering.settled()
    if gathering.failure is not None:
        raise gathering.failure
    return [task.result() for task in gathering.tasks]


@final
class _Gathering(Generic[T]):
    """The native tasks of one gather and how many are still running.

    Every task's done callback is one bound method of this object, run in one shared context:
    a task in flight holds no callback object or context copy of its own (asyncio's
    `TaskGroup` and `gather` make both for every task), so ten thousand calls in flight are that
    many fewer objects for the collector to walk.
    """

    __slots__ = ("_left", "_loop", "_waiter", "failure", "tasks")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._left = 0
        self._waiter: asyncio.Future[None] | None = None
        self.failure: BaseException | None = None
        """The first failure, in the order the tasks finished."""
        self.tasks: list[asyncio.Task[T]] = []
        """The tasks, in the order of their thunks."""

    def start(self, thunks: Iterable[Callable[[], Awaitable[T]]]) -> None:
        """Run each thunk's awaitable as a native task, in order, the thunk called in the
        task's own context (a thunk may start its work at once: what it sets stays its own)."""
        create, tasks, copy = self._loop.create_task, self.tasks, contextvars.copy_context
        on_done = self._done  # bound once, and not kept here: no cycle through this object
        shared = contextvars.Context()  # the callback reads no context variable
        try:
            for thunk in thunks:
                context = copy()  # the one the task would copy anyway
                awaitable = context.run(thunk)  # (a coroutine's exact type is CoroutineType)
                coroutine = awaitable if type(awaitable) is CoroutineType else _await(awaitable)
                task = create(coroutine, context=context)
                task.add_done_callback(on_done, context=shared)
                tasks.append(task)
        finally:
            self._left = len(tasks)

    def failed(self, error: BaseException) -> None:
        """Keep `error` as the gather's failure if it is the first, and cancel every task still
        running."""
        if self.failure is None:
            self.failure = error
            for task in self.tasks:
                task.cancel()  # a task already done ignores it

    async def settled(self) -> None:
        """Wait until every task is done; a cancellation of the waiter cancels them all, is held
        while they finish, and is raised then (unless a task failed: the failure wins)."""
        cancelled: asyncio.CancelledError | None = None
        while self._left:
            self._waiter = self._loop.create_future()  # a new one: a cancelled one stays done
            try:
                await self._waiter
            except asyncio.CancelledError as cancellation:  # again and again, under anyio
                if cancelled is None:
                    cancelled = cancellation
                    for task in self.tasks:
                        task.cancel()
        self._waiter = None
        if cancelled is not None and self.failure is None:
            raise cancelled

    def _done(self, task: asyncio.Task[T]) -> None:
        self._left -= 1
        if not task.cancelled() and (error := task.exception()) is not None:
            self.failed(error)
        if not self._left and self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)


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
