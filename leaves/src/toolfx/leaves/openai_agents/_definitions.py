"""Agents SDK function tools as toolfx definitions, each call through toolfx's pipeline.

Each tool keeps its name, description and parameter schema (checked: the `portable` profile
where it fits, else `full`; a schema toolfx cannot enforce is refused, naming the tool). Its
body builds the SDK's `ToolContext` for the call (the call id, the arguments as JSON text, and
the `context` given at registration) and awaits `on_invoke_tool`. A tool whose `needs_approval`
says so asks the runtime's approvals first (permission: the tool's name). What the tool raises
is a TOOL_ERROR failure naming the error: a `function_tool` is invoked through a copy with no
`failure_error_function` (the SDK's default, or the user's, would turn the error into text the
call returns as a success); the user's tool is left as it is.
"""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from agents import FunctionTool
from agents.tool import set_function_tool_failure_error_function
from agents.tool_context import ToolContext
from returns.result import Failure, Result, Success

from toolfx.core.json import FrozenJson, JsonValue, thaw_json
from toolfx.core.registry import Disposer, Location
from toolfx.core.runtime import ApprovalRequest, Cancelled, RejectedWithFeedback
from toolfx.core.schema import ValueSchema, raw_schema
from toolfx.core.tools import (
    ApprovalDeferred,
    ErrorCode,
    Output,
    PermissionDeclined,
    ToolDefinition,
    ToolFailure,
    ToolOptions,
    ToolRunContext,
    WithContent,
)
from toolfx.leaves.openai_agents._content import content_of

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

__all__ = ["definitions", "register"]

_OUTPUT: Final[Output[FrozenJson, JsonValue]] = Output(JsonValue)
_REBINDS: Final = "__agents_bind_function_tool__"
"""The hook by which the SDK's failure-handling invoker follows a copy of its tool."""

_Outcome = Result[WithContent[FrozenJson], ToolFailure]


def definitions(
    tools: Sequence[FunctionTool], *, namespace: str | None = None, context: object = None
) -> tuple[ToolDefinition[FrozenJson, JsonValue], ...]:
    """A toolfx definition for each function tool; `context` is the SDK run context they get."""
    return tuple(_definition(tool, namespace, context) for tool in tools)


def register(
    location: Location,
    tools: Sequence[FunctionTool],
    *,
    namespace: str | None = None,
    context: object = None,
) -> Disposer:
    """Register the function tools in `location`; the disposer removes them all."""
    return location.register_all(definitions(tools, namespace=namespace, context=context))


def _definition(
    tool: FunctionTool, namespace: str | None, context: object
) -> ToolDefinition[FrozenJson, JsonValue]:
    return ToolDefinition(
        name=tool.name,
        description=tool.description,
        parameters=_parameters(tool),
        output=_OUTPUT,
        execute=_body(tool, context),
        options=ToolOptions(namespace=namespace),
    )


def _parameters(tool: FunctionTool) -> ValueSchema[FrozenJson]:
    """The schema, checked: `portable` where it fits (every provider takes it), or `full`."""
    portable = raw_schema(tool.params_json_schema, "portable")
    checked = portable if isinstance(portable, Success) else raw_schema(tool.params_json_schema)
    if isinstance(checked, Failure):
        raise ValueError(
            f"the Agents SDK tool {tool.name!r} has a schema toolfx cannot enforce: "
            f"{checked.failure()}"
        )
    schema: ValueSchema[FrozenJson] = checked.unwrap()
    return schema


def _body(
    tool: FunctionTool, context: object
) -> Callable[[FrozenJson, ToolRunContext], Awaitable[_Outcome]]:
    invoke = _invoker(tool)

    async def body(arguments: FrozenJson, ctx: ToolRunContext) -> _Outcome:
        text = json.dumps(thaw_json(arguments), ensure_ascii=False)
        tool_context = ToolContext(
            context, tool_name=tool.name, tool_call_id=ctx.call_id, tool_arguments=text
        )
        try:
            asks = await _needs_approval(tool, tool_context, arguments, ctx.call_id)
        except Exception as error:  # the tool's own policy failed: as the tool failing
            return Failure(_failure(tool, error))
        if asks:
            refusal = await _ask(ctx)  # its cancellation and declines are the pipeline's
            if refusal is not None:
                return Failure(refusal)
        try:
            output = await invoke(tool_context, text)
        except Exception as error:  # the tool's own failure: the model reads it and goes on
            return Failure(_failure(tool, error))
        return Success(content_of(output))

    return body


def _invoker(tool: FunctionTool) -> Callable[[ToolContext[Any], str], Awaitable[object]]:
    """What runs a call, raising what the tool raises.

    The SDK's own invoker (`function_tool`'s) turns a raise into text by the tool's
    `failure_error_function`; it rebinds to a copy of its tool, so a copy with none raises. Any
    other invoker (a tool built by hand, a subclass's method) consults no policy: it is used as
    it is, on the user's tool.
    """
    if not callable(getattr(tool.on_invoke_tool, _REBINDS, None)):
        return tool.on_invoke_tool
    raising = copy.copy(tool)
    set_function_tool_failure_error_function(raising, None)
    return raising.on_invoke_tool


def _failure(tool: FunctionTool, error: Exception) -> ToolFailure:
    message = f"The Agents SDK tool `{tool.name}` failed: {type(error).__name__}: {error}"
    return ToolFailure.of(ErrorCode.TOOL_ERROR, message)


async def _needs_approval(
    tool: FunctionTool, context: ToolContext[Any], arguments: FrozenJson, call_id: str
) -> bool:
    policy = tool.needs_approval
    if isinstance(policy, bool):
        return policy
    thawed = thaw_json(arguments)
    answer = policy(context, thawed if isinstance(thawed, dict) else {}, call_id)
    return bool(await answer if inspect.isawaitable(answer) else answer)


async def _ask(ctx: ToolRunContext) -> ToolFailure | None:
    """Ask the runtime's approvals to run the tool: None to go on, or why not."""
    reason = "the Agents SDK tool needs approval"
    request = ApprovalRequest(
        ctx.call_id, ctx.name, ctx.agent, ctx.name, ("*",), reason, ctx.arguments
    )
    reply = await ctx.runtime.approve(request, ctx.signal)
    if reply in ("allowed-once", "allowed-always"):
        return None
    if isinstance(reply, RejectedWithFeedback):
        return ToolFailure.of(
            ErrorCode.DENIED, f"The user rejected `{ctx.name}`, saying: {reply.feedback}"
        )
    if reply == "cancelled":
        raise Cancelled(ctx.signal.reason or "the approval was cancelled")
    if reply == "deferred":
        waiting = f"`{ctx.name}` is waiting for approval: it runs once the approval is answered."
        raise ApprovalDeferred(waiting, (ctx.call_id,))
    raise PermissionDeclined(ctx.name, f"the answer was {reply}")
