"""What the MCP client tests share: the test server over stdio, and calls through the pipeline."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

import anyio

from tests.support import SAFETY_NET
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, Runtime
from toolfx.core.tools import (
    ErrorCode,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
)
from toolfx.interpreters.anyio import run_anyio_async
from toolfx.leaves.mcp._server import McpServer

__all__ = [
    "SAFETY_NET",
    "SERVER_SCRIPT",
    "eventually",
    "failure",
    "local_server",
    "registered",
    "run",
    "value",
]

SERVER_SCRIPT: Final = Path(__file__).with_name("mcp_test_server.py")


def local_server(timeout: float = SAFETY_NET, mode: str = "auto") -> McpServer:
    """The test server over stdio, under the namespace `test`; its tools time out after
    `timeout` seconds (by default only a hang does)."""
    return McpServer.stdio(
        sys.executable, [str(SERVER_SCRIPT)], namespace="test", timeout=timeout, mode=mode
    )


@asynccontextmanager
async def registered(server: McpServer, location: Location) -> AsyncIterator[McpServer]:
    """Connect `server` and register its tools in `location`."""
    async with server:
        await server.register(location)
        yield server


async def run(
    location: Location,
    name: str,
    args: object = None,
    signal: CancelSignal | None = None,
    runtime: Runtime | None = None,
) -> ToolExecutionResult:
    """One call through the whole pipeline with the anyio interpreter on this loop."""
    call = ToolCall("call-1", name, {} if args is None else args, signal or CancelSignal())
    return await run_anyio_async(execute(location.catalog(), call), runtime)


def value(result: ToolExecutionResult) -> object:
    """The value of a successful result."""
    assert isinstance(result, ToolExecutionSuccess), result
    return result.value


def failure(result: ToolExecutionResult, code: ErrorCode) -> str:
    """The message of a failed result with the expected code."""
    assert isinstance(result, ToolExecutionFailure), result
    assert result.error.code is code, result.error
    return result.error.message


async def eventually(check: Callable[[], bool], seconds: float = SAFETY_NET) -> None:
    """Wait until `check()` holds."""
    with anyio.fail_after(seconds):
        while not check():
            await anyio.sleep(0.02)
