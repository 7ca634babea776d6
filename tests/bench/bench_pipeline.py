"""Benchmarks of the pipeline: one trivial call per interpreter, with and without listeners."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypedDict

import anyio
import jsonschema_rs

from tests.bench.harness import Case, time_call
from toolfx.core.pipeline import ToolCall, execute
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
from toolfx.interpreters.anyio import AnyioRuntime
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.interpreters.testing import DeterministicInterpreter

TEXT = '{"a": 1, "b": 2}'
SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}
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
    """Time one call per interpreter (the concurrent batches: bench_batch.py)."""
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
