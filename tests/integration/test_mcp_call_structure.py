"""What an MCP call costs in structure, counted, on asyncio and on trio: toolfx's call of a
server's tool (through the pipeline, with the tool's timeout) enters no task group and no nursery
beyond what the SDK's own `call_tool` enters for the same request; a call served by `toolfx mcp
serve`'s server enters none beyond a bare SDK server's, and makes no capabilities of its own.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypedDict

import anyio
import anyio.abc
import mcp_types as types
import pytest
import trio
from mcp import Client
from mcp.client._memory import InMemoryTransport
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from tests.integration.mcp_test_server import SERVER
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, CodeEngine
from toolfx.core.tools import Output, ToolExecutionSuccess, ToolRunContext, define_tool
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio_async
from toolfx.interpreters.anyio import _runtime as anyio_runtime
from toolfx.interpreters.cli._mcp_serve import mcp_server, mcp_tool
from toolfx.interpreters.codemode import default_engine
from toolfx.leaves.mcp._server import McpServer

pytestmark = pytest.mark.anyio

CALLS = 10


class Echo(TypedDict):
    text: str


def echo(args: Echo, ctx: ToolRunContext) -> str:
    return args["text"]


@contextmanager
def counting_groups(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every anyio task group and trio nursery made while it is open, by name."""
    made: list[str] = []
    groups, nurseries = anyio.create_task_group, trio.open_nursery

    def group() -> anyio.abc.TaskGroup:
        made.append("task group")
        return groups()

    def nursery(**options: Any) -> Any:
        made.append("nursery")
        return nurseries(**options)

    with monkeypatch.context() as patch:
        patch.setattr(anyio, "create_task_group", group)
        patch.setattr(trio, "open_nursery", nursery)
        yield made


async def groups_per_call(
    monkeypatch: pytest.MonkeyPatch, call: Callable[[], Awaitable[object]]
) -> float:
    with counting_groups(monkeypatch) as made:
        for _ in range(CALLS):
            await call()
    return len(made) / CALLS


async def test_a_call_enters_no_task_group_beyond_the_sdks_own(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, "toolfx.mcp")  # the test server's skipped tools
    location = Location()
    runtime = AnyioRuntime()
    async with McpServer(lambda: InMemoryTransport(SERVER), namespace="t", timeout=60) as server:
        await server.register(location)
        client = server.client
        assert client is not None
        catalog = location.catalog()

        async def sdk() -> object:
            return await client.call_tool("echo", {"text": "hi"})

        async def toolfx() -> object:
            call = ToolCall("call-1", "t_echo", {"text": "hi"}, CancelSignal())
            result = await run_anyio_async(execute(catalog, call), runtime)
            assert isinstance(result, ToolExecutionSuccess), result
            return result

        assert catalog.get("t_echo") is not None
        assert catalog.get("t_echo").timeout == 60  # type: ignore[union-attr]
        sdk_groups = await groups_per_call(monkeypatch, sdk)
        toolfx_groups = await groups_per_call(monkeypatch, toolfx)
    assert toolfx_groups == sdk_groups


async def test_a_served_call_enters_no_task_group_and_makes_no_capabilities_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engines: list[object] = []

    def counted_engine() -> CodeEngine:
        engines.append("engine")
        return default_engine()

    monkeypatch.setattr(anyio_runtime, "default_engine", counted_engine)
    location = Location()
    location.register(
        define_tool(
            name="echo", description="Echo", parameters=Echo, output=Output(str), execute=echo
        )
    )
    listing = types.ListToolsResult(
        tools=[mcp_tool(s) for s in location.catalog().native_schemas()]
    )

    async def answer(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text="hi")])

    async def listed(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing

    bare = Server("bare", on_call_tool=answer, on_list_tools=listed)
    async with anyio.create_task_group() as calls:
        served = mcp_server(location.catalog(), calls)
        made = len(engines)  # the server's own, once
        async with (
            Client(InMemoryTransport(served)) as ours,
            Client(InMemoryTransport(bare)) as sdk,
        ):

            async def through_toolfx() -> object:
                result = await ours.call_tool("echo", {"text": "hi"})
                assert result.content == [types.TextContent(type="text", text="hi")]
                return result

            sdk_groups = await groups_per_call(monkeypatch, lambda: sdk.call_tool("echo", {}))
            toolfx_groups = await groups_per_call(monkeypatch, through_toolfx)
        calls.cancel_scope.cancel()
    assert toolfx_groups == sdk_groups
    assert made == 1
    assert len(engines) == made  # no call made an engine (nor files, processes) of its own
