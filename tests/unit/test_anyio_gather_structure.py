"""What a gather with room for every thunk costs on asyncio, counted: one native task per thunk
and nothing around it (no task group, no worker, no wrapper coroutine, no callback object or
context copy of its own), freed without the collector; and how it fails and is cancelled.

Counted, never timed: the thunks wait on a future the test resolves once all have started.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import types
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Generator
from contextlib import contextmanager
from typing import Any, TypedDict, TypeVar, cast

import anyio
import pytest

from toolfx.core.pipeline import BatchResult, ToolCall, execute_batch
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import CancelSignal, Description, Runtime
from toolfx.core.tools import Output, ToolExecutionSuccess, ToolRunContext, define_tool
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio

pytestmark = pytest.mark.anyio

T = TypeVar("T")

COUNT = 50
"""Thunks (or calls) gathered at once."""


@pytest.fixture
def anyio_backend() -> str:
    """The all-at-once gather is asyncio's own (trio's is a nursery)."""
    return "asyncio"


def live(kind: type) -> int:
    """How many objects of exactly `kind` the collector tracks now."""
    return sum(1 for thing in gc.get_objects() if type(thing) is kind)


@contextmanager
def task_log(loop: asyncio.AbstractEventLoop) -> Generator[list[weakref.ref[asyncio.Task[Any]]]]:
    """Each native task the loop makes meanwhile (held weakly), through a task factory."""
    made: list[weakref.ref[asyncio.Task[Any]]] = []

    def factory(
        loop: asyncio.AbstractEventLoop,
        coroutine: Generator[Any, None, T] | Coroutine[Any, Any, T],
        /,
        context: contextvars.Context | None = None,
    ) -> asyncio.Task[T]:
        task = asyncio.Task(coroutine, loop=loop, context=context)
        made.append(weakref.ref(task))
        return task

    loop.set_task_factory(factory)
    try:
        yield made
    finally:
        loop.set_task_factory(None)


class Gate:
    """A future every thunk waits on; it opens once `count` have arrived, and `seen` runs then."""

    def __init__(self, count: int, seen: Callable[[], None] = lambda: None) -> None:
        self.missing = count
        self.seen = seen
        self._opened: asyncio.Future[None] | None = None

    @property
    def opened(self) -> asyncio.Future[None]:
        """The future the thunks wait on (made on the running loop when first asked for)."""
        if self._opened is None:
            self._opened = asyncio.get_running_loop().create_future()
        return self._opened

    async def arrive(self) -> int:
        """Count this thunk in; the last one looks (`seen`) and opens the gate."""
        self.missing -= 1
        if self.missing == 0:
            self.seen()
            self.opened.set_result(None)
        await self.opened
        return self.missing


async def test_every_thunk_is_one_native_task_and_nothing_else_is_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    groups: list[object] = []
    monkeypatch.setattr(asyncio.TaskGroup, "__aenter__", groups.append)
    monkeypatch.setattr(anyio, "create_task_group", lambda: groups.append("anyio"))
    gate = Gate(COUNT)
    with task_log(asyncio.get_running_loop()) as made:
        results = await AnyioRuntime().gather([gate.arrive] * COUNT, COUNT)
    assert results == [0] * COUNT
    assert len(made) == COUNT  # no worker task, no task for the gather itself
    assert groups == []


async def test_a_task_in_flight_holds_one_context_and_no_callback_object_of_its_own() -> None:
    grown: list[tuple[int, int]] = []
    gc.collect()
    contexts, methods = live(contextvars.Context), live(types.MethodType)

    def look() -> None:  # every thunk's task is waiting: what each holds is alive now
        grown.append((live(contextvars.Context) - contexts, live(types.MethodType) - methods))

    gate = Gate(COUNT, look)
    await AnyioRuntime().gather([gate.arrive] * COUNT, COUNT)
    [(more_contexts, more_methods)] = grown
    assert more_contexts <= COUNT + 2  # each task's own copy; not a second one for its callback
    assert more_methods <= 2  # one shared done callback, not a bound method per task


async def test_the_tasks_are_freed_when_the_gather_returns_without_the_collector() -> None:
    gate = Gate(COUNT)
    loop = asyncio.get_running_loop()
    gc.collect()
    gc.disable()  # only reference counting frees now: a cycle would keep the tasks alive
    try:
        with task_log(loop) as made:
            await AnyioRuntime().gather([gate.arrive] * COUNT, COUNT)
        await asyncio.sleep(0)  # the loop lets go of the last done callback's handle
        assert [task() for task in made] == [None] * COUNT
    finally:
        gc.enable()


async def test_a_thunk_failing_to_make_its_awaitable_cancels_the_started_ones() -> None:
    failure = LookupError("no awaitable")

    async def forever() -> int:
        await asyncio.get_running_loop().create_future()  # only a cancel ends this
        return 0

    def broken() -> Awaitable[int]:
        raise failure

    with task_log(asyncio.get_running_loop()) as made, pytest.raises(LookupError) as caught:
        await AnyioRuntime().gather([forever, forever, broken, forever], 4)
    assert caught.value is failure  # as raised, not in a group
    tasks = [task() for task in made]
    assert len(tasks) == 2  # the thunks after the broken one are never made
    assert all(task is not None and task.cancelled() for task in tasks)  # and none left running


async def test_a_cancelled_gather_cancels_each_task_once_however_often_it_is_cancelled() -> None:
    loop = asyncio.get_running_loop()
    cancellations = [0] * COUNT
    waiting: list[int] = []
    all_waiting = loop.create_future()

    def stubborn(index: int) -> Callable[[], Awaitable[None]]:
        async def thunk() -> None:
            waiting.append(index)
            if len(waiting) == COUNT:  # the others wait already; this one does in this step
                all_waiting.set_result(None)
            try:
                await loop.create_future()  # only a cancel ends this
            except asyncio.CancelledError:
                cancellations[index] += 1
            for _ in range(5):  # winding down, while the gather is cancelled again and again
                try:
                    await asyncio.sleep(0)
                except asyncio.CancelledError:
                    cancellations[index] += 1

        return thunk

    gathering = loop.create_task(AnyioRuntime().gather([stubborn(i) for i in range(COUNT)], COUNT))
    await all_waiting
    for _ in range(4):  # as anyio's cancel scope does, each turn of the loop
        gathering.cancel()
        await asyncio.sleep(0)
    with pytest.raises(asyncio.CancelledError):
        await gathering
    assert cancellations == [1] * COUNT


class Args(TypedDict):
    n: int


def test_a_batch_with_no_limit_starts_one_native_task_per_call_and_no_task_group(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    groups: list[object] = []
    made: list[list[weakref.ref[asyncio.Task[Any]]]] = []

    signal = CancelSignal()
    calls = [ToolCall(f"c{n}", "wait", {"n": n}, signal) for n in range(COUNT)]
    batch = execute_batch(waiting_catalog(), calls, limit=None)

    async def program(runtime: Runtime) -> BatchResult:
        monkeypatch.setattr(asyncio.TaskGroup, "__aenter__", groups.append)
        with task_log(asyncio.get_running_loop()) as log:
            made.append(log)
            return await batch.program(runtime)

    _gates.append(Gate(COUNT))
    try:
        result = run_anyio(Description(program))
    finally:
        _gates.pop()
    assert [r.value for r in result.results if isinstance(r, ToolExecutionSuccess)] == list(
        range(COUNT)
    )
    assert len(made[0]) == COUNT
    assert groups == []


def test_a_batched_call_in_flight_keeps_two_objects_beyond_a_raw_gather_of_its_body() -> None:
    """The one coroutine that finishes it, its state and its keeper, less the context copy a
    raw gather makes for each child's callback: no task group, worker, wrapper coroutine,
    decoding, callback object or context copy of the batch's own (counted by the growth per
    call between two sizes, so what a run holds once does not count; the calls themselves are
    built before)."""
    catalog = waiting_catalog()

    def raw(count: int) -> Callable[[], None]:
        async def main() -> None:
            bodies = (body({"n": n}, None) for n in range(count))  # type: ignore[arg-type]
            await asyncio.gather(*bodies)

        return lambda: asyncio.run(main())

    def batch(count: int) -> Callable[[], None]:
        signal = CancelSignal()
        calls = [ToolCall(f"c{n}", "wait", {"n": n}, signal) for n in range(count)]

        def run() -> None:
            result = run_anyio(execute_batch(catalog, calls, limit=None))
            values = [r.value for r in result.results if isinstance(r, ToolExecutionSuccess)]
            assert values == list(range(count))

        return run

    def growth_per_call(prepared: Callable[[int], Callable[[], None]]) -> float:
        more, fewer = 3 * COUNT, COUNT
        return (held_in_flight(prepared(more), more) - held_in_flight(prepared(fewer), fewer)) / (
            more - fewer
        )

    # two, with room for the few objects a run makes now and then, not per call
    assert growth_per_call(batch) - growth_per_call(raw) < 2.5


def test_a_batched_call_in_flight_is_one_coroutine_of_the_pipeline_around_its_body() -> None:
    """Between the call's task and its body's coroutine: the one coroutine that awaits the
    body and then ends the call (no `run_call`, no body-dispatch coroutine in between)."""
    chains: list[list[str]] = []

    def look() -> None:  # every call's body waits at the gate now
        for task in asyncio.all_tasks():
            chain, coroutine = [], cast(object, task.get_coro())
            while isinstance(coroutine, types.CoroutineType):
                chain.append(coroutine.__qualname__)
                coroutine = coroutine.cr_await
            if body.__qualname__ in chain:
                chains.append(chain)

    signal = CancelSignal()
    calls = [ToolCall(f"c{n}", "wait", {"n": n}, signal) for n in range(COUNT)]
    _gates.append(Gate(COUNT, look))
    try:
        result = run_anyio(execute_batch(waiting_catalog(), calls, limit=None))
    finally:
        _gates.pop()
    assert len(result.results) == COUNT
    # every call but the one looking, which runs (a running coroutine awaits nothing yet)
    assert chains == [["_dispatched_later", body.__qualname__, "Gate.arrive"]] * (COUNT - 1)


_gates: list[Gate] = []


async def body(args: Args, ctx: ToolRunContext) -> int:
    """Wait at the current gate (`held_in_flight`'s), then give `n`."""
    return await _gates[-1].arrive() + args["n"]


def waiting_catalog() -> Catalog:
    """One parallel-safe tool, `wait`, whose body is `body`."""
    location = Location()
    location.register(
        define_tool(
            name="wait",
            description="wait",
            parameters=Args,
            output=Output(int),
            execute=body,
            is_concurrency_safe=True,
        )
    )
    return location.catalog()


def held_in_flight(run: Callable[[], None], count: int) -> int:
    """How many more objects the collector tracks while `count` bodies wait than before `run`."""
    held: list[int] = []
    gc.collect()
    before = len(gc.get_objects())
    _gates.append(Gate(count, lambda: held.append(len(gc.get_objects()) - before)))
    try:
        run()
    finally:
        _gates.pop()
    return held[0]
