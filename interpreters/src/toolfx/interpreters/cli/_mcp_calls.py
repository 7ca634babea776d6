"""`tools/call` for `toolfx mcp serve`: every call through the pipeline, its asks put to the client.

Each call runs in a task of its own in the server's one task group (no task group or cancel scope
per call), under the anyio interpreter with the server's files, processes, spills and Code Mode
engine (made once), and tells the request handling it what comes next: an ask or the result. It
is not run in the SDK's task for the request: a call outlives its request when it parks on an
ask, and the SDK cancels that task outright on `notifications/cancelled`, where the call must
see its signal and end ABORTED. On a handshake-era connection the handler puts
an ask to the client at once (an `elicitation/create` request); on a 2026-07-28 connection, which
has no server-initiated requests, it ends the round with an input-required result, and the call
waits, parked under its `requestState`, until the client retries with the answer (or for
`ASK_TTL` seconds, after which it is cancelled). A client without form elicitation is never asked:
the rules decide, and what they leave open is denied.

A cancelled request (`notifications/cancelled`, which the SDK delivers by cancelling the handler's
task) sets the call's signal, so the pipeline stops the tool and ends ABORTED; the handler's
cancellation goes on as it came. MCP answers no cancelled request, so a call's result that no one
waits for (cancelled, or parked past its ask's expiry) is logged with its code on stderr.

Results: a success's value is its `structuredContent` when it is a JSON object; a failure is
`isError` with its code, message and details under `_meta["toolfx/error"]` and no structured
content (an error need not match the tool's output schema, and validating clients skip it).
The call is named by the model's call id when the client passes one under
`_meta["toolfx/callId"]`, else by a number of this server's; never by the JSON-RPC request id.
"""

from __future__ import annotations

import itertools
import logging
import math
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, cast, final

import anyio
import anyio.abc
import mcp_types as types
from mcp import MCPError
from mcp.server.context import ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Catalog
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, CancelSignal, SpillStore
from toolfx.core.tools import ToolExecutionFailure, ToolExecutionResult
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio_async
from toolfx.interpreters.cli._mcp_asks import ASK_KEY, ask_form, can_elicit, elicit, reply_of
from toolfx.interpreters.cli._mcp_content import mcp_block

__all__ = ["ASK_TTL", "CALL_ID_META", "ERROR_META", "McpCalls", "call_result"]

ASK_TTL: Final = 600.0
"""Seconds a call parked on an ask waits for the client's retry before it is cancelled."""

ERROR_META: Final = "toolfx/error"
"""The `_meta` key of a failed result's code, message and details."""

CALL_ID_META: Final = "toolfx/callId"
"""The `_meta` key of a `tools/call` request under which a client names the model's call id."""

_log = logging.getLogger("toolfx.mcp")


def call_result(result: ToolExecutionResult) -> types.CallToolResult:
    """A pipeline result as MCP: its content, with a success's object value as structured
    content, and a failure's code, message and details in `_meta` beside `isError`."""
    content: list[types.ContentBlock] = [mcp_block(block) for block in result.content]
    if not isinstance(result, ToolExecutionFailure):
        if not isinstance(result.value, Mapping):
            return types.CallToolResult(content=content)
        structured = cast("dict[str, Any]", result.value)  # a FrozenDict: a dict, kept as it is
        return types.CallToolResult(content=content, structured_content=structured)
    error = result.error
    meta = {"code": error.code.value, "message": error.message, "details": error.info.details}
    return types.CallToolResult(content=content, is_error=True, _meta={ERROR_META: meta})


@final
class _Ask:
    """One ask of a running call, until the request handling the call answers it."""

    __slots__ = ("_answered", "_reply", "request")

    def __init__(self, request: ApprovalRequest) -> None:
        self.request = request
        self._answered = anyio.Event()
        self._reply: ApprovalReply = "unavailable"

    def answer(self, reply: ApprovalReply) -> None:
        """Give the call its reply."""
        self._reply = reply
        self._answered.set()

    async def reply(self) -> ApprovalReply:
        """Wait for the reply."""
        await self._answered.wait()
        return self._reply


_Step = _Ask | ToolExecutionResult


@final
class _Call:
    """One call running in the server's task group: its signal, and its asks and result."""

    __slots__ = ("_receive", "_send", "call_id", "name", "signal")

    def __init__(self, name: str, call_id: str | None) -> None:
        self.name = name
        self.call_id = call_id  # the model's, when the client gave one
        self.signal = CancelSignal()
        self._send, self._receive = anyio.create_memory_object_stream[_Step](math.inf)

    async def run(self, catalog: Catalog, call: ToolCall, asks: bool, shared: AnyioRuntime) -> None:
        """Run the call through the pipeline; its asks and then its result go to `next_step`.

        Its runtime has its own approvals (its asks) and `shared`'s files, processes, spills and
        Code Mode engine, made once for the server rather than for each call."""
        runtime = AnyioRuntime(
            approvals=self._ask if asks else None,
            files=shared.files,
            processes=shared.processes,
            spills=shared.spills,
            code=shared.code,
        )
        with self._send:
            result = await run_anyio_async(execute(catalog, call), runtime)
            try:
                self._send.send_nowait(result)
            except anyio.BrokenResourceError:  # cancelled: no one waits for it
                _log_dropped(call, result)

    async def _ask(self, request: ApprovalRequest) -> ApprovalReply:
        ask = _Ask(request)
        try:
            self._send.send_nowait(ask)
        except anyio.BrokenResourceError:
            return "cancelled"
        return await ask.reply()

    async def next_step(self) -> _Step:
        """The call's next ask, or its result."""
        try:
            return await self._receive.receive()
        except anyio.EndOfStream:  # only when the server's task group is being cancelled
            raise MCPError(types.INTERNAL_ERROR, f"`{self.name}` ended without a result") from None

    def finish(self) -> None:
        """Stop listening to the call (its result was taken, or no one will take it)."""
        self._receive.close()

    def cancel(self, reason: str) -> None:
        """Set the call's signal, and stop listening to it."""
        self.signal.cancel(reason)
        self.finish()


def _log_dropped(call: ToolCall, result: ToolExecutionResult) -> None:
    """Log the result of a call no one waits for (MCP answers no cancelled request)."""
    ended = "succeeded"
    if isinstance(result, ToolExecutionFailure):
        ended = f"ended {result.error.code.value}: {result.error.message}"
    _log.warning(
        "`%s` (%s) was stopped, its result goes to no one: it %s", call.name, call.call_id, ended
    )


@final
@dataclass(frozen=True, slots=True)
class _Parked:
    """A call waiting for the client's answer to its ask, and the scope of its expiry."""

    call: _Call
    ask: _Ask
    expiry: anyio.CancelScope


@final
class McpCalls:
    """The `tools/call` handler of one server: calls run in `group`, asks go to the client."""

    __slots__ = ("_catalog", "_group", "_numbers", "_parked", "_shared")

    def __init__(self, catalog: Catalog, group: anyio.abc.TaskGroup, spills: SpillStore) -> None:
        self._catalog = catalog
        self._shared = AnyioRuntime(spills=spills)  # the capabilities every call shares
        self._group = group
        self._parked: dict[str, _Parked] = {}
        self._numbers = itertools.count(1)

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Start the call (or go on with a parked one) until its result or its next ask."""
        if params.request_state is None:
            call = self._start(ctx, params)
        else:
            call = self._resume(params, params.request_state)
        try:
            while True:
                step = await call.next_step()
                if not isinstance(step, _Ask):
                    call.finish()
                    return call_result(step)
                if not ctx.session.can_send_request:
                    return self._park(call, step)
                step.answer(await elicit(ctx.session, step.request, call.call_id, ctx.request_id))
        except anyio.get_cancelled_exc_class():
            call.cancel("the MCP request was cancelled")
            raise

    def _start(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> _Call:
        session = ctx.session
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        asks = can_elicit(session.client_capabilities) and (session.can_send_request or modern)
        given = (params.meta or {}).get(CALL_ID_META)
        call = _Call(params.name, given if isinstance(given, str) else None)
        call_id = f"mcp-{next(self._numbers)}" if call.call_id is None else call.call_id
        arguments = {} if params.arguments is None else params.arguments
        tool_call = ToolCall(call_id, params.name, arguments, call.signal)
        self._group.start_soon(call.run, self._catalog, tool_call, asks, self._shared)
        return call

    def _park(self, call: _Call, ask: _Ask) -> types.InputRequiredResult:
        token = secrets.token_urlsafe(24)
        parked = _Parked(call, ask, anyio.CancelScope())
        self._parked[token] = parked
        self._group.start_soon(self._expire, token, parked)
        request = types.ElicitRequest(params=ask_form(ask.request, call.call_id))
        return types.InputRequiredResult(input_requests={ASK_KEY: request}, request_state=token)

    async def _expire(self, token: str, parked: _Parked) -> None:
        with parked.expiry:
            await anyio.sleep(ASK_TTL)
            if self._parked.pop(token, None) is parked:
                parked.call.cancel(f"the ask was not answered within {ASK_TTL:g}s")

    def _resume(self, params: types.CallToolRequestParams, token: str) -> _Call:
        parked = self._parked.get(token)
        if parked is None or parked.call.name != params.name:
            raise MCPError(
                types.INVALID_PARAMS,
                f"no call of `{params.name}` waits under this requestState: call the tool again",
            )
        del self._parked[token]
        parked.expiry.cancel()
        answer = (params.input_responses or {}).get(ASK_KEY)
        parked.ask.answer(reply_of(answer, parked.ask.request))
        return parked.call
