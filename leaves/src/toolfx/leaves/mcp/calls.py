"""One `tools/call` on a live connection, cancelled when the call's signal is set.

The request runs in a task group next to a watcher that waits for the call's signal through the
runtime's `sleep` (which wakes from any thread). When the signal is set first, the request is
cancelled: the SDK then sends `notifications/cancelled` for it, and the body raises `Cancelled`,
which the pipeline turns into ABORTED (or TOOL_TIMEOUT when its deadline set the signal).
The errors the SDK raises for a failed request (an error answer, a closed connection, a result
that is not a valid `CallToolResult`) become typed failures here; cancellation of the calling
task itself is never caught.
"""

from __future__ import annotations

import math

import anyio
import anyio.abc
import mcp_types as types
from mcp import Client, MCPError
from pydantic import ValidationError
from returns.result import Failure, Result

from toolfx.core import (
    Cancelled,
    CompiledSchema,
    ErrorCode,
    FrozenJson,
    ToolFailure,
    ToolRunContext,
    thaw_json,
)
from toolfx.core.cancel import CALLER_CANCELLED
from toolfx.leaves.mcp.results import outcome_of

__all__ = ["call_tool"]


async def call_tool(
    client: Client,
    tool: str,
    args: FrozenJson,
    context: ToolRunContext,
    *,
    server: str,
    output: CompiledSchema | None,
) -> Result[FrozenJson, ToolFailure]:
    """Call `tool` with `args` on the server named `server`; the call's signal cancels it."""
    arguments = thaw_json(args)
    request = types.CallToolRequest(
        params=types.CallToolRequestParams(
            name=tool, arguments=arguments if isinstance(arguments, dict) else None
        )
    )
    answers: list[types.CallToolResult | ToolFailure] = []
    async with anyio.create_task_group() as group:
        group.start_soon(_cancel_when_signalled, context, group.cancel_scope)
        answers.append(await _send(client, request, server, context.name))
        group.cancel_scope.cancel()  # the watcher's work is over
    if not answers:  # the watcher cancelled the request
        raise Cancelled(context.signal.reason or CALLER_CANCELLED)
    answer = answers[0]
    if isinstance(answer, ToolFailure):
        return Failure(answer)
    return outcome_of(answer, output, context.name)


async def _send(
    client: Client, request: types.CallToolRequest, server: str, name: str
) -> types.CallToolResult | ToolFailure:
    try:
        return await client.session.send_request(request, types.CallToolResult)
    except MCPError as error:
        gone = error.code == types.CONNECTION_CLOSED
        hint = " (the server has gone away: reconnect it to use its tools again)" if gone else ""
        return ToolFailure.of(
            ErrorCode.TOOL_ERROR, f"MCP server '{server}' could not run `{name}`: {error}{hint}"
        )
    except ValidationError as error:
        first = str(error).split("\n", 1)[0]
        return ToolFailure.of(
            ErrorCode.INVALID_TOOL_OUTPUT,
            f"MCP server '{server}' answered `{name}` with a malformed result: {first}",
        )


async def _cancel_when_signalled(context: ToolRunContext, scope: anyio.CancelScope) -> None:
    try:
        await context.runtime.sleep(math.inf, context.signal)
    except Cancelled:
        scope.cancel()
