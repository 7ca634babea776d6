"""The MCP client adapter against a real server process (mcp_test_server.py), on asyncio and trio.

Every call goes through the pipeline under the anyio interpreter on the loop that holds the
connection. Timing bounds are generous on purpose: this machine is noisy.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable

import anyio
import anyio.to_thread
import pytest

from tests.integration.mcp_support import (
    SAFETY_NET,
    SERVER_SCRIPT,
    eventually,
    failure,
    local_server,
    registered,
    run,
    value,
)
from tests.integration.mcp_test_server import PIXEL
from toolfx.core.pipeline import ToolCall, execute, execute_batch
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, ProgressEvent
from toolfx.core.tools import (
    Deny,
    ErrorCode,
    ImageBlock,
    PreToolDecision,
    TextBlock,
    ToolExecution,
    ToolExecutionResult,
)
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio_async
from toolfx.interpreters.sync import run_sync
from toolfx.leaves.mcp._link import McpServerError
from toolfx.leaves.mcp._server import McpServer

pytestmark = pytest.mark.anyio


# Registration and calls -------------------------------------------------------------------------


async def test_tools_are_registered_and_called_through_the_pipeline() -> None:
    location = Location()
    async with registered(local_server(timeout=45.0), location) as server:
        assert server.report is not None
        assert {"test_echo", "test_add", "test_peek", "test_range"} <= set(server.report.names)
        assert value(await run(location, "test_echo", {"text": "hi"})) == "hi"
        added = await run(location, "test_add", {"a": 1, "b": 2})
        assert value(added) == {"sum": 3}
        assert added.content == (TextBlock('{"sum": 3}'),)  # the server's own content
        picture = await run(location, "test_picture")
        assert picture.content == (TextBlock("a pixel:"), ImageBlock(PIXEL, "image/png"))
        definition = location.get("test_echo")
        assert definition is not None
        assert definition.timeout == 45.0
    assert location.schemas() == ()  # leaving the block removed the server's tools


async def test_full_profile_keywords_are_enforced_before_the_server_is_asked() -> None:
    location = Location()
    async with registered(local_server(), location):
        refused = await run(location, "test_range", {"low": -1})
        assert "/low: expected integer >= 0, found integer -1" in failure(
            refused, ErrorCode.INVALID_ARGS
        )
        assert value(await run(location, "test_range", {"low": 1, "high": None})) == (
            '{"low": 1, "high": null}'
        )
        (schema,) = [s for s in location.schemas() if s.name == "test_range"]
        assert isinstance(schema.parameters, dict)
        assert "$schema" not in schema.parameters  # the draft-07 dialect URI is set aside


async def test_is_error_and_bad_structured_content_are_typed_failures() -> None:
    location = Location()
    async with registered(local_server(), location):
        failed = await run(location, "test_fail")
        assert failure(failed, ErrorCode.TOOL_ERROR) == "it failed on purpose"
        bad = await run(location, "test_bad_add", {"a": 1, "b": 2})
        assert failure(bad, ErrorCode.INVALID_TOOL_OUTPUT) == (
            "`test_bad_add` returned structured content that does not match its output schema: "
            '1 problem\n- /sum: expected integer, found string "3"'
        )


async def test_read_only_hint_makes_a_tool_parallel_safe() -> None:
    location = Location()
    async with registered(local_server(), location):
        assert location.execution_mode("test_peek", {}) == "parallel"
        assert location.execution_mode("test_echo", {"text": "x"}) == "exclusive"
        peeks = [
            ToolCall(f"call-{i}", "test_peek", {"seconds": 0.5}, CancelSignal()) for i in range(3)
        ]
        batch = await run_anyio_async(execute_batch(location.catalog(), peeks))
        assert [value(result) for result in batch.results] == ["peeked"] * 3
        assert value(await run(location, "test_peek_peak")) == "3"  # all in flight at once


async def test_policy_and_guards_apply_to_mcp_tools() -> None:
    location = Location()

    async def policy(
        execution: ToolExecution, next_decision: Callable[[], Awaitable[PreToolDecision]]
    ) -> PreToolDecision:
        return Deny("not that one") if execution.name == "test_fail" else await next_decision()

    def guard(execution: ToolExecution) -> str | None:
        return "no echo today" if execution.name == "test_echo" else None

    location.on_pre_execute(policy)
    location.guard(guard)
    async with registered(local_server(), location):
        denied = await run(location, "test_fail")
        assert failure(denied, ErrorCode.DENIED) == "Denied: not that one"
        guarded = await run(location, "test_echo", {"text": "hi"})
        assert failure(guarded, ErrorCode.DENIED) == "Denied: no echo today"
        assert value(await run(location, "test_peek")) == "peeked"


async def test_the_sync_interpreter_gets_a_clear_failure() -> None:
    location = Location()
    async with registered(local_server(), location):
        call = ToolCall("call-1", "test_echo", {"text": "hi"}, CancelSignal())
        description = execute(location.catalog(), call)
        result = await anyio.to_thread.run_sync(lambda: run_sync(description))
        assert failure(result, ErrorCode.TOOL_ERROR) == (
            "`test_echo` needs the anyio interpreter (asyncio or trio) running on the event loop "
            "that holds the connection to MCP server 'test'"
        )


# Cancellation, timeouts, dead servers ------------------------------------------------------------


async def test_cancelling_a_slow_call_sends_the_mcp_cancellation() -> None:
    location = Location()
    async with registered(local_server(), location):
        signal = CancelSignal()

        def stop_once_started(event: ProgressEvent) -> None:  # from another thread
            threading.Thread(target=signal.cancel, args=("the user pressed stop",)).start()

        runtime = AnyioRuntime(progress=stop_once_started)
        result = await run(location, "test_slow", {"seconds": 30}, signal, runtime)
        message = failure(result, ErrorCode.ABORTED)
        assert message == "`test_slow` was cancelled: the user pressed stop"

        async def server_saw_it() -> bool:
            return value(await run(location, "test_cancelled")) == '["slow"]'

        with anyio.fail_after(SAFETY_NET):
            while not await server_saw_it():
                await anyio.sleep(0.05)


async def test_cancelling_the_calling_task_is_not_swallowed() -> None:
    location = Location()
    async with registered(local_server(), location):
        with anyio.move_on_after(0.3) as scope:
            await run(location, "test_slow", {"seconds": 30})
        assert scope.cancelled_caught  # the backend's cancellation went through the pipeline
        assert value(await run(location, "test_echo", {"text": "still here"})) == "still here"


async def test_a_hung_server_times_out_and_can_be_reconnected() -> None:
    location = Location()
    async with registered(local_server(timeout=0.5), location) as server:
        result = await run(location, "test_hang")
        assert failure(result, ErrorCode.TOOL_TIMEOUT) == "`test_hang` timed out after 0.5s"
        await server.reconnect()
        assert value(await run(location, "test_echo", {"text": "back"})) == "back"


async def test_a_killed_server_gives_failures_at_once_and_can_be_reconnected() -> None:
    location = Location()
    async with registered(local_server(timeout=20.0), location) as server:
        pid = int(str(value(await run(location, "test_pid"))))
        results: list[ToolExecutionResult] = []
        async with anyio.create_task_group() as group:

            async def slow_call() -> None:
                results.append(await run(location, "test_slow", {"seconds": 30}))

            group.start_soon(slow_call)
            await anyio.sleep(0.3)
            os.kill(pid, signal.SIGKILL)
        gone = (
            "MCP server 'test' could not run `{}`: Connection closed "
            "(the server has gone away: reconnect it to use its tools again)"
        )
        assert failure(results[0], ErrorCode.TOOL_ERROR) == gone.format("test_slow")
        again = await run(location, "test_echo", {"text": "hi"})
        assert failure(again, ErrorCode.TOOL_ERROR) == gone.format("test_echo")
        report = await server.reconnect()
        assert report is not None
        assert "test_echo" in report.names
        assert value(await run(location, "test_echo", {"text": "hi"})) == "hi"
        assert int(str(value(await run(location, "test_pid")))) != pid


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_tools_changed_notification_swaps_the_tools_in_one_change(mode: str) -> None:
    location = Location()
    seen: list[tuple[bool, bool]] = []  # at each change: is `extra` there, is `fail` there

    def look() -> None:
        seen.append((location.get("test_extra") is not None, location.get("test_fail") is not None))

    location.on_change(look)
    async with registered(local_server(mode=mode), location) as server:
        seen.clear()
        assert value(await run(location, "test_change_tools")) == "changed"
        await eventually(lambda: location.get("test_extra") is not None)
        assert location.get("test_fail") is None
        assert set(seen) == {(True, False)}  # no catalog ever showed half of the change
        assert server.report is not None
        assert "test_extra" in server.report.names
        assert value(await run(location, "test_extra")) == "extra ran"


async def test_streamable_http() -> None:
    command = [sys.executable, str(SERVER_SCRIPT), "--http"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            port = int(await anyio.to_thread.run_sync(process.stdout.readline))
            location = Location()
            server = McpServer.http(f"http://127.0.0.1:{port}/mcp", namespace="web")
            async with registered(server, location):
                assert value(await run(location, "web_echo", {"text": "by http"})) == "by http"
                assert value(await run(location, "web_add", {"a": 2, "b": 3})) == {"sum": 5}
        finally:
            process.terminate()


async def test_a_server_that_cannot_start_raises_a_typed_error() -> None:
    server = McpServer.stdio("/nonexistent/mcp-server", namespace="gone", connect_timeout=5.0)
    with pytest.raises(McpServerError) as raised:
        async with server:
            pass
    assert str(raised.value) == (
        "MCP server 'gone' could not connect: FileNotFoundError: "
        "[Errno 2] No such file or directory: '/nonexistent/mcp-server'"
    )


async def test_a_server_that_never_answers_is_given_up_after_the_connect_timeout() -> None:
    silent = "import sys; sys.stdin.read()"  # reads every request, answers none
    server = McpServer.stdio(sys.executable, ["-c", silent], namespace="mute", connect_timeout=0.5)
    with pytest.raises(McpServerError) as raised:
        async with server:
            pass
    assert str(raised.value) == "MCP server 'mute' did not finish connecting within 0.5s"
