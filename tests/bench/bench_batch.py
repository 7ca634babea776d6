"""Benchmarks of batches: 1,000 and 10,000 concurrent 10 ms calls against raw `asyncio.gather`.

One turn of N calls of one parallel-safe tool whose async body awaits `ctx.runtime.sleep(0.01)`,
run through `execute_batch` with `limit=None` (every call of the run at once, as the peers run
a turn; the default limit, `DEFAULT_PARALLEL_LIMIT` calls in flight, is timed beside it for 1,000),
timed end to end from the calls as the model sends them (JSON text): each `ToolCall` built from
its text (`ToolCall.from_json`) inside the timed
part (one `CancelSignal` for the turn, as a caller cancels a turn), then the batch run on a new
event loop, as `run_anyio` does. Beside it, on the same machine in the same run and in turns:
raw `asyncio.gather` of N `asyncio.sleep(0.01)` on a new loop (the target's yardstick), the
anyio floor (an anyio task group of N `anyio.sleep`), `AnyioRuntime.gather` of the bare sleeps
(what `execute_batch` runs its calls on, without the pipeline: the batch's cost above it is its
calls'), and on trio the raw nursery and the batch.
Each figure is the least disturbed of several short runs, each from a collected heap; every
timed batch is checked to hold N successes with the body's value.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import time
from collections.abc import Callable
from typing import Final, TypedDict

import anyio
import trio

from tests.bench.harness import Case
from toolfx.core.pipeline import DEFAULT_PARALLEL_LIMIT, BatchResult, ToolCall, execute_batch
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import CancelSignal, Description, Runtime
from toolfx.core.tools import Output, ToolExecutionSuccess, ToolRunContext, define_tool
from toolfx.interpreters.anyio import run_anyio

SIZES: Final = (1_000, 10_000)
"""The batch sizes measured."""

SLEEP_SECONDS: Final = 0.01
"""What each call's body waits."""

RUNS: Final = {1_000: 9, 10_000: 5}
"""Timed runs of each case per size, taken in turns; the fastest counts."""

DEFAULT_LIMIT_SIZE: Final = 1_000
"""The largest size also timed at the default limit (a turn of 10,000 calls would take 3 s)."""


class Nap(TypedDict):
    ms: int


async def nap(args: Nap, ctx: ToolRunContext) -> int:
    await ctx.runtime.sleep(args["ms"] / 1000)
    return args["ms"]


def catalog() -> Catalog:
    """A Location with the one parallel-safe sleeping tool."""
    location = Location()
    location.register(
        define_tool(
            name="nap",
            description="Sleep",
            parameters=Nap,
            output=Output(int),
            execute=nap,
            is_concurrency_safe=True,
        )
    )
    return location.catalog()


def model_calls(count: int) -> list[tuple[str, str, str]]:
    """A turn's calls as the model sends them: id, tool name, arguments as JSON text."""
    text = json.dumps({"ms": round(SLEEP_SECONDS * 1000)})
    return [(f"call_{index}", "nap", text) for index in range(count)]


def batch_run(
    tools: Catalog,
    sent: list[tuple[str, str, str]],
    backend: str,
    limit: int | None = None,
) -> Callable[[], BatchResult]:
    """One timed turn: build the calls from their text, then run the batch on a new loop."""

    def turn() -> BatchResult:
        signal = CancelSignal()
        calls = [ToolCall.from_json(call_id, name, text, signal) for call_id, name, text in sent]
        batch = execute_batch(tools, calls, limit=limit)
        return run_anyio(batch, backend)  # type: ignore[arg-type]

    return turn


def raw_asyncio(count: int) -> Callable[[], object]:
    """Raw asyncio: `asyncio.gather` of the sleeps on a new loop."""

    async def main() -> None:
        await asyncio.gather(*(asyncio.sleep(SLEEP_SECONDS) for _ in range(count)))

    return lambda: asyncio.run(main())


def runtime_gather(count: int) -> Callable[[], object]:
    """What `execute_batch` runs on: `AnyioRuntime.gather` of the bare sleeps, no pipeline."""

    async def main(runtime: Runtime) -> None:
        slept = await runtime.gather(
            [functools.partial(runtime.sleep, SLEEP_SECONDS)] * count, count
        )
        assert slept == [None] * count, len(slept)

    return lambda: run_anyio(Description(main))


def raw_anyio(count: int) -> Callable[[], object]:
    """The floor under anyio: its own task group of `anyio.sleep`s on a new asyncio loop."""

    async def main() -> None:
        async with anyio.create_task_group() as group:
            for _ in range(count):
                group.start_soon(anyio.sleep, SLEEP_SECONDS)

    return lambda: anyio.run(main)


def raw_trio(count: int) -> Callable[[], object]:
    """Raw trio: a nursery of `trio.sleep`s on a new trio run."""

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            for _ in range(count):
                nursery.start_soon(trio.sleep, SLEEP_SECONDS)

    return lambda: trio.run(main)


def checked(turn: Callable[[], BatchResult], count: int) -> Callable[[], object]:
    """`turn`, failing the bench unless it gave `count` successes with the body's value."""
    expected = round(SLEEP_SECONDS * 1000)

    def run_checked() -> None:
        results = turn().results
        assert len(results) == count, len(results)
        for result in results:
            assert isinstance(result, ToolExecutionSuccess), result
            assert result.value == expected, result.value

    return run_checked


def timed_in_turns(actions: dict[str, Callable[[], object]], runs: int) -> dict[str, float]:
    """Each action's fastest run in ms, the actions taken in turns (the load hits all alike)."""
    best = dict.fromkeys(actions, float("inf"))
    for action in actions.values():  # warm up every path once
        action()
    for _ in range(runs):
        for name, action in actions.items():
            gc.collect()  # each run starts from the same heap; its own collections still count
            start = time.perf_counter()
            action()
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: seconds * 1e3 for name, seconds in best.items()}


def run() -> list[Case]:
    """Time each batch size against raw asyncio, the anyio floor and trio, with the targets."""
    tools = catalog()
    cases: list[Case] = []
    for count in SIZES:
        sent = model_calls(count)
        size = f"{count:,} x 10 ms calls"
        times = timed_in_turns(
            {
                "raw asyncio.gather": raw_asyncio(count),
                "raw anyio task group (the floor under anyio)": raw_anyio(count),
                "AnyioRuntime.gather of the sleeps (no pipeline)": runtime_gather(count),
                "execute_batch under anyio-asyncio, from the JSON": checked(
                    batch_run(tools, sent, "asyncio"), count
                ),
                "raw trio nursery": raw_trio(count),
                "execute_batch under anyio-trio, from the JSON": checked(
                    batch_run(tools, sent, "trio"), count
                ),
            },
            RUNS[count],
        )
        if count <= DEFAULT_LIMIT_SIZE:
            at_default = batch_run(tools, sent, "asyncio", DEFAULT_PARALLEL_LIMIT)
            times |= timed_in_turns(
                {"execute_batch under anyio-asyncio, default limit": checked(at_default, count)},
                RUNS[count],
            )
        cases.extend((f"{size}, {name} (ms)", value) for name, value in times.items())
        gather = times["raw asyncio.gather"]
        cases.extend(
            [
                (
                    f"target <= 1.25: {size}, execute_batch anyio-asyncio / raw asyncio.gather (x)",
                    times["execute_batch under anyio-asyncio, from the JSON"] / gather,
                ),
                (
                    f"{size}, AnyioRuntime.gather of the sleeps / raw asyncio.gather (x)",
                    times["AnyioRuntime.gather of the sleeps (no pipeline)"] / gather,
                ),
                (
                    f"{size}, execute_batch anyio-trio / raw trio nursery (x)",
                    times["execute_batch under anyio-trio, from the JSON"]
                    / times["raw trio nursery"],
                ),
            ]
        )
    return cases
