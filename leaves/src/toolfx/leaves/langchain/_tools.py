"""LangChain tools (`BaseTool`s, `@tool` functions) as toolfx definitions run by toolfx's pipeline.

Each tool keeps its name and description; its parameters are the JSON Schema LangChain gives
models for it (derived from `tool_call_schema`), checked with the `portable` profile, or `full`
where that is what it needs; a schema toolfx could not enforce refuses the tool, naming it and
every problem. So toolfx validates the arguments first, then rules, asks, guards and wrappers
apply, and the body calls `tool.ainvoke` with a tool call carrying toolfx's call id (a tool that
takes `InjectedToolCallId` gets it). A tool that needs what only a LangGraph run injects (state,
store, `ToolRuntime`) is refused at import. The tool's message is the content (text, images,
audio) and its text the value; a message with `status="error"` or an exception is a TOOL_ERROR
failure with its text, and LangChain's own validation error an INVALID_ARGS one. LangChain runs
on asyncio only: the calls run with the anyio interpreter on asyncio, and elsewhere fail saying so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final, get_args

from returns.result import Failure, Result, Success

try:  # the face imports this module: without the extra, say which one to install
    from langchain_core.messages import ToolMessage
    from langchain_core.messages.tool import ToolCall as LangChainCall
    from langchain_core.tools import BaseTool, InjectedToolCallId
    from langchain_core.tools.base import get_all_basemodel_annotations
    from langchain_core.utils.function_calling import convert_to_openai_function
    from langchain_core.utils.pydantic import get_fields
    from pydantic import PydanticUserError, ValidationError
except ImportError as _missing:
    raise ImportError(
        f"toolfx.leaves.langchain needs {_missing.name}: install toolfx-leaves[langchain]",
        name=_missing.name,
    ) from _missing

from toolfx.core import (
    Disposer,
    ErrorCode,
    FrozenJson,
    JsonValue,
    Location,
    Output,
    ToolDefinition,
    ToolDefinitionError,
    ToolFailure,
    ToolOptions,
    WithContent,
    raw_schema,
    thaw_json,
)
from toolfx.leaves.langchain._content import content_blocks

if TYPE_CHECKING:
    from toolfx.core import ToolRunContext, ValueSchema

__all__ = ["definitions", "register"]

_OUTPUT: Final[Output[FrozenJson, JsonValue]] = Output(JsonValue)

_Outcome = Result[WithContent[JsonValue], ToolFailure]


def definitions(
    tools: Iterable[BaseTool], *, namespace: str | None = None
) -> tuple[ToolDefinition[FrozenJson, JsonValue], ...]:
    """One toolfx definition per LangChain tool (a ToolDefinitionError names a tool refused)."""
    return tuple(_definition(tool, namespace) for tool in tools)


def register(
    location: Location, tools: Iterable[BaseTool], *, namespace: str | None = None
) -> Disposer:
    """Register the tools in `location` in one change; the disposer removes them all."""
    return location.register_all(definitions(tools, namespace=namespace))


def _definition(tool: BaseTool, namespace: str | None) -> ToolDefinition[FrozenJson, JsonValue]:
    injected = _injected_beyond_call_id(tool)
    if injected:
        raise ToolDefinitionError(
            tool.name,
            "arguments",
            f"{', '.join(injected)} would be injected by a LangGraph run (state, store or "
            "ToolRuntime), which toolfx does not provide",
        )

    async def body(args: FrozenJson, ctx: ToolRunContext) -> _Outcome:
        return await _call(tool, args, ctx.call_id)

    return ToolDefinition(
        name=tool.name,
        description=tool.description,
        parameters=_parameters(tool),
        output=_OUTPUT,
        execute=body,
        options=ToolOptions(namespace=namespace),
    )


def _parameters(tool: BaseTool) -> ValueSchema[FrozenJson]:
    try:
        schema = convert_to_openai_function(tool)["parameters"]
    except PydanticUserError as error:  # an argument type with no JSON Schema
        raise ToolDefinitionError(
            tool.name, "args_schema", f"LangChain gives it no JSON Schema: {error}"
        ) from error
    portable = raw_schema(schema, "portable")
    checked = portable if isinstance(portable, Success) else raw_schema(schema, "full")
    if isinstance(checked, Failure):
        raise ToolDefinitionError(
            tool.name, "args_schema", f"toolfx could not enforce it: {checked.failure()}"
        )
    return checked.unwrap()


def _injected_beyond_call_id(tool: BaseTool) -> list[str]:
    """The arguments LangChain injects into `tool` other than the tool call id."""
    offered = tool.tool_call_schema
    if isinstance(offered, dict):  # a JSON Schema dict: LangChain injects nothing
        return []
    seen = set(get_fields(offered))
    return [
        name
        for name, annotation in get_all_basemodel_annotations(tool.get_input_schema()).items()
        if name not in seen and not _is_call_id(annotation)
    ]


def _is_call_id(annotation: object) -> bool:
    return any(
        marker is InjectedToolCallId or isinstance(marker, InjectedToolCallId)
        for marker in get_args(annotation)[1:]
    )


async def _call(tool: BaseTool, args: FrozenJson, call_id: str) -> _Outcome:
    if not _on_asyncio():
        return _failed(
            ErrorCode.TOOL_ERROR,
            f"the LangChain tool `{tool.name}` runs only on asyncio: run its calls with the "
            "anyio interpreter on asyncio (not trio, not the sync interpreter)",
        )
    arguments = thaw_json(args)
    assert isinstance(arguments, dict), "toolfx validated the arguments as an object"
    call = LangChainCall(type="tool_call", id=call_id, name=tool.name, args=arguments)
    try:
        reply: Any = await tool.ainvoke(call)
    except ValidationError as error:
        return _failed(ErrorCode.INVALID_ARGS, f"Invalid arguments for tool `{tool.name}`: {error}")
    except Exception as error:  # the framework tool's failure, for the model to read
        return _failed(ErrorCode.TOOL_ERROR, f"{type(error).__name__}: {error}")
    if not isinstance(reply, ToolMessage):
        return _failed(
            ErrorCode.TOOL_ERROR,
            f"the LangChain tool `{tool.name}` answered with a {type(reply).__name__}, "
            "not a ToolMessage, and toolfx passes only messages on",
        )
    if reply.status == "error":
        return _failed(ErrorCode.TOOL_ERROR, reply.text)
    return Success(WithContent(reply.text, content_blocks(reply)))


def _on_asyncio() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _failed(code: ErrorCode, message: str) -> _Outcome:
    return Failure(ToolFailure.of(code, message))
