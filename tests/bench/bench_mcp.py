"""MCP per-call overhead: the same tool on the same in-memory connection (JSON-RPC over memory
streams to the repository's test server), called through the official SDK `Client.call_tool`
and through toolfx's `McpServer` tool via the pipeline (anyio interpreter on asyncio; the tool
has its timeout, as every MCP tool does). The two are measured in turns within one run, each
the least disturbed of many short runs; the difference is what toolfx adds per call (target:
under 100 µs).
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Final

import anyio
from mcp.client._memory import InMemoryTransport

from tests.bench.harness import Case
from tests.integration.mcp_test_server import SERVER
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import ToolExecutionSuccess
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio_async
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


def run() -> list[Case]:
    """The SDK and toolfx per-call costs on one connection, and their difference."""
    log = logging.getLogger("toolfx.mcp")
    level = log.level
    log.setLevel(logging.ERROR)  # the test server's skipped tools are expected here
    try:
        result: list[Case] = anyio.run(_measure)
    finally:
        log.setLevel(level)
    return result
