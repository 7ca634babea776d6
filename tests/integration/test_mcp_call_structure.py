"""What an MCP call costs in structure, counted: toolfx's call of a server's tool (through the
pipeline, with the tool's timeout) enters no task group and no nursery beyond what the SDK's own
`call_tool` enters for the same request, on asyncio and on trio.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import anyio.abc
import pytest
import trio
from mcp.client._memory import InMemoryTransport

from tests.integration.mcp_test_server import SERVER
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import ToolExecutionSuccess
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio_async
from toolfx.leaves.mcp._server import McpServer

pytestmark = pytest.mark.anyio

CALLS = 10


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
