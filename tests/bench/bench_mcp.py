"""MCP per-call overhead, on asyncio and on trio. Client side: the same tool on the same
in-memory connection (JSON-RPC over memory streams to the repository's test server), called
through the official SDK `Client.call_tool` and through toolfx's `McpServer` tool via the
pipeline (the anyio interpreter; the tool has its timeout, as every MCP tool does). Server side:
the SDK client calling an `echo` tool served by `toolfx mcp serve`'s server (`mcp_server`: the
call through the pipeline in its own task) and by a bare SDK `Server` whose handler answers at
once. Each pair is measured in turns within one run, each the least disturbed of many short
runs; the differences are what toolfx adds per call (target: under 100 µs).
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypedDict

import anyio
import mcp_types as types
from mcp import Client
from mcp.client._memory import InMemoryTransport
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from tests.bench.harness import Case
from tests.integration.mcp_test_server import SERVER
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import Output, ToolExecutionSuccess, ToolRunContext, define_tool
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio_async
from toolfx.interpreters.cli._mcp_serve import mcp_server, mcp_tool
from toolfx.leaves.mcp._server import McpServer

CALLS: Final = 200
"""Calls per timed run."""

RUNS: Final = 25
"""Timed runs of each side, taken in turns; the fastest counts."""

ARGUMENTS: Final = {"text": "hi"}


async def _per_call(call: Callable[[], Awaitable[object]]) -> float:
    """Microseconds per call over one run of `CALLS` calls."""
    gc.collect()  # each run starts from the same heap; its own collections still count
    start = time.perf_counter()
    for _ in range(CALLS):
        await call()
    return (time.perf_counter() - start) / CALLS * 1e6


async def _measure() -> list[Case]:
    location = Location()
    runtime = AnyioRuntime()
    async with McpServer(lambda: InMemoryTransport(SERVER), namespace="bench") as server:
        await server.register(location)
        client = server.client
        assert client is not None
        catalog = location.catalog()

        async def sdk() -> object:
            return await client.call_tool("echo", ARGUMENTS)

        async def toolfx() -> object:
            call = ToolCall("call-1", "bench_echo", ARGUMENTS, CancelSignal())
            result = await run_anyio_async(execute(catalog, call), runtime)
            assert isinstance(result, ToolExecutionSuccess), result
            return result

        await _per_call(sdk)  # warm up both paths
        await _per_call(toolfx)
        best_sdk = best_toolfx = float("inf")
        for _ in range(RUNS):  # in turns, so the machine's load hits both alike
            best_sdk = min(best_sdk, await _per_call(sdk))
            best_toolfx = min(best_toolfx, await _per_call(toolfx))
    return [
        ("SDK Client.call_tool, in-memory server", best_sdk),
        ("toolfx McpServer tool via the pipeline, same connection", best_toolfx),
        ("toolfx overhead per MCP call (toolfx - SDK)", best_toolfx - best_sdk),
    ]


class Echo(TypedDict):
    text: str


def echo(args: Echo, ctx: ToolRunContext) -> str:
    return args["text"]


async def _answer_at_once(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    text = (params.arguments or {})["text"]
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


async def _measure_serving() -> list[Case]:
    location = Location()
    location.register(
        define_tool(
            name="echo", description="Echo", parameters=Echo, output=Output(str), execute=echo
        )
    )
    listing = types.ListToolsResult(
        tools=[mcp_tool(s) for s in location.catalog().native_schemas()]
    )

    async def listed(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing  # the same tool as toolfx lists, so the client treats both alike

    bare = Server("bare", on_call_tool=_answer_at_once, on_list_tools=listed)
    async with anyio.create_task_group() as calls:
        served = mcp_server(location.catalog(), calls)
        async with (
            Client(InMemoryTransport(served)) as ours,
            Client(InMemoryTransport(bare)) as sdk,
        ):

            async def through_toolfx() -> object:
                answer = await ours.call_tool("echo", ARGUMENTS)
                assert not answer.is_error, answer
                assert answer.content == [types.TextContent(type="text", text="hi")], answer
                return answer

            async def through_sdk() -> object:
                return await sdk.call_tool("echo", ARGUMENTS)

            await _per_call(through_sdk)  # warm up both paths
            await _per_call(through_toolfx)
            best_sdk = best_toolfx = float("inf")
            for _ in range(RUNS):
                best_sdk = min(best_sdk, await _per_call(through_sdk))
                best_toolfx = min(best_toolfx, await _per_call(through_toolfx))
        calls.cancel_scope.cancel()
    return [
        ("serve: SDK Server answering at once, SDK client", best_sdk),
        ("serve: toolfx mcp serve's server, the pipeline, SDK client", best_toolfx),
        ("serve: toolfx overhead per served MCP call (toolfx - SDK)", best_toolfx - best_sdk),
    ]


async def _measure_both() -> list[Case]:
    return [*await _measure(), *await _measure_serving()]


def run() -> list[Case]:
    """The SDK and toolfx per-call costs on one connection, and their difference, on asyncio and
    on trio (where a deadline used to cost a task group and a task per call)."""
    log = logging.getLogger("toolfx.mcp")
    level = log.level
    log.setLevel(logging.ERROR)  # the test server's skipped tools are expected here
    try:
        cases: list[Case] = anyio.run(_measure_both)
        on_trio: list[Case] = anyio.run(_measure_both, backend="trio")
    finally:
        log.setLevel(level)
    return [*cases, *((f"{name}, trio", value) for name, value in on_trio)]
