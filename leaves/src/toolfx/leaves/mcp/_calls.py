"""One `tools/call` on a live connection: cancelled when the call's signal is set, its progress
passed to the runtime, the server's asks answered by the runtime's approvals.

The request runs inside a cancel scope that a watcher on the call's signal cancels (in the
connection's event loop, from whichever thread set the signal): no task is started per call.
When the signal is set first, the SDK sends `notifications/cancelled` for the request, and the
body raises `Cancelled`, which the pipeline turns into ABORTED (or TOOL_TIMEOUT when its
deadline set the signal). Each request carries a progress token; the server's progress
notifications reach `ToolRunContext.report_progress`. An input-required answer (2026-07-28)
has its requests answered through the client's callbacks (elicitation goes to this call's
approvals, see `_asks.py`) and the call is sent again, at most `MAX_INPUT_ROUNDS` times.
The errors the SDK raises for a failed request (an error answer, a closed connection, a result
that is not a valid `CallToolResult`) become typed failures; cancellation of the calling task
itself is never caught.
"""

from __future__ import annotations

import logging
from typing import Final, cast

import anyio
import mcp_types as types
from mcp import MCPError
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.shared.dispatcher import ProgressFnT
from pydantic import TypeAdapter, ValidationError
from returns.result import Failure

from toolfx.core.json import FrozenJson, thaw_json
from toolfx.core.jsonschema import CompiledSchema
from toolfx.core.runtime import CALLER_CANCELLED, Cancelled
from toolfx.core.tools import ErrorCode, ToolFailure, ToolRunContext
from toolfx.leaves.mcp._link import Link
from toolfx.leaves.mcp._results import CALL_ID_META, McpOutcome, outcome_of

__all__ = ["MAX_INPUT_ROUNDS", "call_tool"]

MAX_INPUT_ROUNDS: Final = 8
"""How many input-required rounds one call may take before it fails."""

_ANSWER: Final = TypeAdapter[types.CallToolResult | types.InputRequiredResult](
    types.CallToolResult | types.InputRequiredResult
)

_log = logging.getLogger("toolfx.mcp")


async def call_tool(
    link: Link,
    tool: str,
    args: FrozenJson,
    context: ToolRunContext,
    *,
    server: str,
    output: CompiledSchema | None,
) -> McpOutcome:
    """Call `tool` with `args` on the server named `server`; the call's signal cancels it."""
    signal = context.signal
    if signal.is_cancelled():
        raise Cancelled(signal.reason or CALLER_CANCELLED)
    arguments = thaw_json(args)
    params = types.CallToolRequestParams(
        name=tool,
        arguments=arguments if isinstance(arguments, dict) else None,
        # an open map the SDK types as a TypedDict with extra items (which mypy does not know)
        _meta=cast("types.RequestParamsMeta", {CALL_ID_META: context.call_id}),
    )
    entered = link.calls.enter(context)
    try:
        with anyio.CancelScope() as scope:
            unsubscribe = signal.on_cancel(link.waker(scope.cancel))
            try:
                answer = await _call(link, params, _progress_of(context, server), server, context)
            finally:
                unsubscribe()
    finally:
        link.calls.leave(entered)
    if scope.cancelled_caught:
        raise Cancelled(signal.reason or CALLER_CANCELLED)
    if isinstance(answer, ToolFailure):
        return Failure(answer)
    return outcome_of(answer, output, context.name)


async def _call(
    link: Link,
    params: types.CallToolRequestParams,
    progress: ProgressFnT,
    server: str,
    context: ToolRunContext,
) -> types.CallToolResult | ToolFailure:
    session = link.client.session
    try:
        for _ in range(MAX_INPUT_ROUNDS + 1):
            request = types.CallToolRequest(params=params)
            answer = await session.send_request(request, _ANSWER, progress_callback=progress)
            if isinstance(answer, types.CallToolResult):
                return answer
            params = params.model_copy(
                update={
                    "input_responses": await _inputs(session, answer),
                    "request_state": answer.request_state,
                }
            )
    except MCPError as error:
        gone = error.code == types.CONNECTION_CLOSED
        hint = " (the server has gone away: reconnect it to use its tools again)" if gone else ""
        return ToolFailure.of(
            ErrorCode.TOOL_ERROR,
            f"MCP server '{server}' could not run `{context.name}`: {error}{hint}",
        )
    except ValidationError as error:
        first = str(error).split("\n", 1)[0]
        return ToolFailure.of(
            ErrorCode.INVALID_TOOL_OUTPUT,
            f"MCP server '{server}' answered `{context.name}` with a malformed result: {first}",
        )
    return ToolFailure.of(
        ErrorCode.TOOL_ERROR,
        f"MCP server '{server}' still asked for input after {MAX_INPUT_ROUNDS} rounds of "
        f"`{context.name}`",
    )


async def _inputs(
    session: ClientSession, answer: types.InputRequiredResult
) -> types.InputResponses | None:
    """The client's answers to the server's input requests, in this call's task."""
    if not answer.input_requests:
        await anyio.sleep(0.05)  # only request state: the server is still working
        return None
    responses: types.InputResponses = {}
    for key, request in answer.input_requests.items():
        context = ClientRequestContext(session=session, request_id=key)
        response = await session.dispatch_input_request(context, request)
        if isinstance(response, types.ErrorData):
            raise MCPError.from_error_data(response)
        responses[key] = response
    return responses


def _progress_of(context: ToolRunContext, server: str) -> ProgressFnT:
    async def report(progress: float, total: float | None, message: str | None) -> None:
        try:
            context.report_progress(progress, total, message)
        except ValueError as error:
            _log.warning("MCP server %r sent unusable progress: %s", server, error)

    return report
