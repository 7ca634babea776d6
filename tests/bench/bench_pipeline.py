"""Benchmarks of the pipeline: one trivial call per interpreter, with and without listeners."""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypedDict

import anyio
import jsonschema_rs

from tests.bench.harness import Case, time_call
from toolfx.core.pipeline import ToolCall, execute, execute_batch
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, Description
from toolfx.core.tools import (
    Accept,
    Allow,
    Output,
    PostToolDecision,
    PreToolDecision,
    ToolExecution,
    ToolExecutionResult,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.interpreters.testing import DeterministicInterpreter

TEXT = '{"a": 1, "b": 2}'
SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}
CONCURRENT_CALLS = 1_000
SLEEP_SECONDS = 0.01


class Args(TypedDict):
    a: int
    b: int


def add(args: Args, ctx: ToolRunContext) -> int:
    return args["a"] + args["b"]


async def sleepy(args: Args, ctx: ToolRunContext) -> int:
    await ctx.runtime.sleep(SLEEP_SECONDS)
    return 0


def plain_location() -> Location:
    location = Location()
    location.register(
        define_tool(name="add", description="Add", parameters=Args, output=Output(int), execute=add)
    )
    location.register(
        define_tool(
            name="sleepy",
            description="Sleep",
            parameters=Args,
            output=Output(int),
            execute=sleepy,
            is_concurrency_safe=lambda args: True,
        )
    )
    return location


def with_listeners(location: Location) -> Location:
    async def pre(execution: ToolExecution, next_: Any) -> PreToolDecision:
        return Allow()

    async def wrap(
        execution: ToolExecution,
        next_: Callable[[ToolExecution], Awaitable[ToolExecutionResult]],
    ) -> ToolExecutionResult:
        return await next_(execution)

    async def post(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
        return Accept()

    location.on_pre_execute(pre)
    location.guard(lambda execution: None)
    location.wrap_execute(wrap)
    location.on_post_execute(post)
    location.on_result(lambda execution, result: None)
    return location


def baseline() -> int:
    """What a hand-written dispatcher does: parse, validate, call."""
    arguments = json.loads(TEXT)
    VALIDATOR.validate(arguments)
    return add(arguments, None)  # type: ignore[arg-type]


VALIDATOR = jsonschema_rs.Draft202012Validator(SCHEMA)


def run() -> list[Case]:
    """Time one call per interpreter and the 1,000-call concurrent batch against asyncio."""
    hand_written = time_call(baseline)
    cases: list[Case] = [("json.loads + jsonschema-rs validate + call", hand_written)]
    arguments = json.loads(TEXT)
    sync_runtime = SyncRuntime()
    anyio_runtime = AnyioRuntime()
    deterministic = DeterministicInterpreter(seed=1)
    per_call: dict[str, float] = {}
    for label, location in (
        ("no listeners", plain_location()),
        ("one listener of each kind", with_listeners(plain_location())),
    ):
        catalog = location.catalog()
        call = ToolCall("c", "add", arguments, CancelSignal())
        description = execute(catalog, call)
        per_call[f"sync, {label}"] = time_call(
            functools.partial(run_sync, description, sync_runtime)
        )
        for backend in ("asyncio", "trio"):
            per_call[f"anyio-{backend} (inside one loop), {label}"] = _in_loop(
                description, anyio_runtime, backend
            )
        per_call[f"deterministic (a scheduler per call), {label}"] = time_call(
            functools.partial(deterministic.run, description)
        )
    cases.extend((f"pipeline, {name}", value) for name, value in per_call.items())
    sleeps = _concurrent_sleeps()
    cases.extend(sleeps)
    timed_sleeps = dict(sleeps)
    raw_gather = timed_sleeps["1,000 x 10 ms sleeps, raw asyncio.gather (ms)"]
    batch = timed_sleeps["1,000 x 10 ms sleeps, execute_batch under anyio-asyncio (ms)"]
    return [
        *cases,
        (
            "target <= 3: sync, no listeners / hand-written (x)",
            per_call["sync, no listeners"] / hand_written,
        ),
        (
            "target < 10: anyio-asyncio overhead over hand-written (µs)",
            per_call["anyio-asyncio (inside one loop), no listeners"] - hand_written,
        ),
        ("target <= 1.5: 1,000-call batch / raw asyncio.gather (x)", batch / raw_gather),
    ]


def _in_loop(description: Description[Any], runtime: AnyioRuntime, backend: str) -> float:
    """Per-call cost under anyio, measured inside one running loop (no loop start-up)."""
    rounds = 2_000

    async def many() -> float:
        start = time.perf_counter()
        for _ in range(rounds):
            await description.program(runtime)
        return (time.perf_counter() - start) / rounds * 1e6

    return min(anyio.run(many, backend=backend) for _ in range(3))


def _concurrent_sleeps() -> list[Case]:
    location = plain_location()
    calls = [
        ToolCall(f"c{i}", "sleepy", {"a": 0, "b": 0}, CancelSignal())
        for i in range(CONCURRENT_CALLS)
    ]
    batch = execute_batch(location.catalog(), calls, limit=CONCURRENT_CALLS)

    async def raw() -> None:
        await asyncio.gather(*(asyncio.sleep(SLEEP_SECONDS) for _ in range(CONCURRENT_CALLS)))

    async def raw_anyio() -> None:  # the floor under anyio: its own task group and sleep
        async with anyio.create_task_group() as group:
            for _ in range(CONCURRENT_CALLS):
                group.start_soon(anyio.sleep, SLEEP_SECONDS)

    def timed(action: Callable[[], object]) -> float:
        best = float("inf")
        for _ in range(15):  # the least disturbed of many short runs
            gc.collect()  # each run starts from the same heap; its own collections still count
            start = time.perf_counter()
            action()
            best = min(best, time.perf_counter() - start)
        return best * 1e3

    return [
        ("1,000 x 10 ms sleeps, raw asyncio.gather (ms)", timed(lambda: asyncio.run(raw()))),
        ("1,000 x 10 ms sleeps, raw anyio task group (ms)", timed(lambda: anyio.run(raw_anyio))),
        (
            "1,000 x 10 ms sleeps, execute_batch under anyio-asyncio (ms)",
            timed(lambda: run_anyio(batch, "asyncio")),
        ),
    ]
