"""The default parallel limit: DEFAULT_PARALLEL_LIMIT calls of a run in flight (what each holds
while it waits stays bounded per turn), `limit=None` for every call at once as the peers run a
turn's calls; exclusive calls still run alone; a tool is parallel-safe by a constant; a run in
flight holds no thunk per call.

Counted, never timed: each body notes when it starts and ends, and waits on the runtime's clock
(the deterministic interpreter's is virtual), or until all its siblings have started (anyio: an
event the last one sets).
"""

from __future__ import annotations

import functools
import gc
from typing import Literal, TypedDict

import anyio
import pytest

from tests.support import SAFETY_NET
from toolfx.core.pipeline import DEFAULT_PARALLEL_LIMIT, BatchResult, ToolCall, execute_batch
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, Description, Runtime
from toolfx.core.tools import (
    Output,
    ToolDefinitionError,
    ToolExecutionSuccess,
    ToolRunContext,
    define_tool,
    tool,
)
from toolfx.interpreters.anyio import run_anyio
from toolfx.interpreters.testing import DeterministicInterpreter

CALLS = DEFAULT_PARALLEL_LIMIT + 8
"""More than the default limit lets in at once."""


class Args(TypedDict):
    n: int


class Rendezvous:
    """Where `count` tasks wait until all of them have arrived (on the running anyio loop)."""

    def __init__(self, count: int) -> None:
        self.missing = count
        self.everyone = anyio.Event()

    async def arrive(self) -> None:
        """Count this task in, then wait for the rest."""
        self.missing -= 1
        if self.missing == 0:
            self.everyone.set()
        await self.everyone.wait()


def noting_location(events: list[tuple[str, int]]) -> Location:
    """`nap` (parallel-safe by the constant True) and `write` (exclusive): each notes its start
    and its end around a one-second nap on the runtime's clock."""

    async def body(args: Args, ctx: ToolRunContext) -> int:
        events.append(("start", args["n"]))
        await ctx.runtime.sleep(1.0)
        events.append(("end", args["n"]))
        return args["n"]

    location = Location()
    for name, safe in (("nap", True), ("write", False)):
        location.register(
            define_tool(
                name=name,
                description=name,
                parameters=Args,
                output=Output(int),
                execute=body,
                is_concurrency_safe=safe,
            )
        )
    return location


def calls_of(names: list[str]) -> list[ToolCall]:
    signal = CancelSignal()
    return [ToolCall(f"c{n}", name, {"n": n}, signal) for n, name in enumerate(names)]


def values(batch: BatchResult) -> list[object]:
    return [r.value if isinstance(r, ToolExecutionSuccess) else r for r in batch.results]


def peak_in_flight(events: list[tuple[str, int]]) -> int:
    """The most calls started and not yet ended at any point of `events`."""
    in_flight = peak = 0
    for kind, _ in events:
        in_flight += 1 if kind == "start" else -1
        peak = max(peak, in_flight)
    return peak


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_by_default_a_run_has_the_default_limit_of_calls_in_flight(seed: int) -> None:
    events: list[tuple[str, int]] = []
    catalog = noting_location(events).catalog()
    batch = DeterministicInterpreter(seed=seed).run(
        execute_batch(catalog, calls_of(["nap"] * CALLS))
    )
    assert values(batch) == list(range(CALLS))
    assert peak_in_flight(events) == DEFAULT_PARALLEL_LIMIT


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_with_no_limit_every_parallel_safe_call_starts_before_any_ends(seed: int) -> None:
    events: list[tuple[str, int]] = []
    catalog = noting_location(events).catalog()
    batch = DeterministicInterpreter(seed=seed).run(
        execute_batch(catalog, calls_of(["nap"] * CALLS), limit=None)
    )
    assert values(batch) == list(range(CALLS))
    assert [kind for kind, _ in events[:CALLS]] == ["start"] * CALLS
    assert sorted(n for _, n in events[:CALLS]) == list(range(CALLS))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_given_limit_still_bounds_the_calls_in_flight(seed: int) -> None:
    events: list[tuple[str, int]] = []
    catalog = noting_location(events).catalog()
    batch = DeterministicInterpreter(seed=seed).run(
        execute_batch(catalog, calls_of(["nap"] * CALLS), limit=3)
    )
    assert values(batch) == list(range(CALLS))
    assert peak_in_flight(events) == 3


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exclusive_calls_never_overlap_any_other(seed: int) -> None:
    events: list[tuple[str, int]] = []
    catalog = noting_location(events).catalog()
    names = ["nap"] * 10 + ["write"] + ["nap"] * 10 + ["write", "write"] + ["nap"] * 10
    batch = DeterministicInterpreter(seed=seed).run(execute_batch(catalog, calls_of(names)))
    assert values(batch) == list(range(len(names)))
    for n, name in enumerate(names):
        if name == "write":  # it starts once everything before it ended, and ends next
            start = events.index(("start", n))
            assert events[start + 1] == ("end", n)
            assert {m for kind, m in events[:start] if kind == "end"} == set(range(n))
    first_run = {m for _, m in events[:10]}  # the ten naps before the first write: all at once
    assert first_run == set(range(10))


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_under_anyio_with_no_limit_every_call_of_a_run_is_in_flight_at_once(
    backend: Literal["asyncio", "trio"],
) -> None:
    all_started = Rendezvous(CALLS)

    async def wait_for_all(args: Args, ctx: ToolRunContext) -> int:
        await all_started.arrive()  # each waits for all the others: they overlap, or this hangs
        return args["n"]

    location = Location()
    location.register(
        define_tool(
            name="nap",
            description="nap",
            parameters=Args,
            output=Output(int),
            execute=wait_for_all,
            is_concurrency_safe=True,
        )
    )
    batch = execute_batch(location.catalog(), calls_of(["nap"] * CALLS), limit=None)

    async def guarded(runtime: Runtime) -> BatchResult:
        with anyio.fail_after(SAFETY_NET):  # only against a hang
            return await batch.program(runtime)

    assert values(run_anyio(Description(guarded), backend)) == list(range(CALLS))


def test_the_decorator_and_define_tool_take_the_same_constant() -> None:
    @tool(parallel_safe=True)
    def read(n: int) -> int:
        """Read."""
        return n

    assert read.is_concurrency_safe is True
    location = Location()
    location.register(read)
    assert location.execution_mode("read", {"n": 1}) == "parallel"
    assert location.execution_mode("read", {"n": "one"}) == "exclusive"  # invalid: alone


def test_false_is_the_same_as_no_classifier() -> None:
    definition = define_tool(
        name="t",
        description="t",
        parameters=Args,
        output=Output(int),
        execute=lambda args, ctx: 1,
        is_concurrency_safe=False,
    )
    assert definition.is_concurrency_safe is None


@pytest.mark.parametrize("given", [1, "yes", [True]], ids=["one", "text", "list"])
def test_anything_else_than_a_bool_or_a_function_is_refused_when_defined(given: object) -> None:
    with pytest.raises(ToolDefinitionError, match="is_concurrency_safe"):
        define_tool(
            name="t",
            description="t",
            parameters=Args,
            output=Output(int),
            execute=lambda args, ctx: 1,
            is_concurrency_safe=given,  # type: ignore[arg-type]
        )


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_no_thunk_or_keeper_partial_outlives_the_start_of_its_call(
    backend: Literal["asyncio", "trio"],
) -> None:
    """On asyncio each call is its own task; on trio a worker runs it (holding no thunk)."""
    alive: list[int] = []
    all_started = Rendezvous(CALLS)

    async def count_thunks(args: Args, ctx: ToolRunContext) -> int:
        await all_started.arrive()  # every call of the run is in flight
        gc.collect()
        alive.append(sum(1 for o in gc.get_objects() if isinstance(o, functools.partial)))
        return args["n"]

    location = Location()
    location.register(
        define_tool(
            name="count",
            description="count",
            parameters=Args,
            output=Output(int),
            execute=count_thunks,
            is_concurrency_safe=True,
        )
    )
    gc.collect()
    before = sum(1 for o in gc.get_objects() if isinstance(o, functools.partial))
    batch = execute_batch(location.catalog(), calls_of(["count"] * CALLS), limit=None)
    assert values(run_anyio(batch, backend)) == list(range(CALLS))
    assert max(alive) - before < CALLS  # not one (or two) partials held per call in flight
