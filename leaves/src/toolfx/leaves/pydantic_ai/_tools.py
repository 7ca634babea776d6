"""pydantic-ai tools as toolfx definitions: the tool's name, description and JSON schema, and
a body that calls its function, so a call runs through toolfx's pipeline first.

The schema is pydantic-ai's, checked with the `full` profile; the pipeline validates the
model's arguments against it, then the body validates them again with the tool's own pydantic
validator (which builds the pydantic models and dataclasses the function takes) and calls it.
A tool that needs what only an agent run gives (a `RunContext`, a `prepare` or an arguments
validator that take one, pydantic-ai's own approval) is refused when it is imported, by name.
What the function raises (`ModelRetry` included) is a TOOL_ERROR failure with its message;
its value becomes JSON (pydantic models and dataclasses as their JSON form).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, final

from pydantic import ValidationError
from pydantic_ai import FunctionToolset, ModelRetry, Tool, ToolReturn
from pydantic_core import PydanticSerializationError, to_jsonable_python
from returns.result import Failure, Result, Success

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
    ToolRunContext,
    raw_schema,
    thaw_json,
)

__all__ = ["PydanticAIToolError", "PydanticAITools", "definitions", "register"]

PydanticAITools = FunctionToolset[Any] | Iterable[Tool[Any]]
"""pydantic-ai tools to bring into a Location: a function toolset, or tools."""

Outcome = Result[JsonValue, ToolFailure]

_OUTPUT: Output[FrozenJson, JsonValue] = Output(JsonValue)


@final
class PydanticAIToolError(ValueError):
    """A pydantic-ai tool toolfx cannot run: which tool, and why."""

    def __init__(self, tool: str, reason: str) -> None:
        super().__init__(f"pydantic-ai tool '{tool}' cannot be registered in toolfx: {reason}")
        self.tool = tool
        self.reason = reason


def definitions(
    tools: PydanticAITools, *, namespace: str | None = None
) -> tuple[ToolDefinition[FrozenJson, JsonValue], ...]:
    """A toolfx definition for each tool; a tool toolfx cannot run raises `PydanticAIToolError`."""
    listed = tools.tools.values() if isinstance(tools, FunctionToolset) else tools
    return tuple(_definition(tool, namespace) for tool in listed)


def register(
    location: Location, tools: PydanticAITools, *, namespace: str | None = None
) -> Disposer:
    """Register every tool in `location`; the one disposer removes them all."""
    return location.register_all(definitions(tools, namespace=namespace))


def _definition(tool: Tool[Any], namespace: str | None) -> ToolDefinition[FrozenJson, JsonValue]:
    reason = _unsupported(tool)
    if reason is not None:
        raise PydanticAIToolError(tool.name, reason)
    schema = tool.function_schema
    parameters = raw_schema(schema.json_schema, "full")
    if isinstance(parameters, Failure):
        reason = f"toolfx cannot enforce its JSON schema: {parameters.failure()}"
        raise PydanticAIToolError(tool.name, reason)
    try:
        return ToolDefinition(
            name=tool.name,
            description=tool.description or "",
            parameters=parameters.unwrap(),
            output=_OUTPUT,
            execute=_body(tool),
            timeout=tool.timeout,
            options=ToolOptions(namespace=namespace),
            blocking=not schema.is_async,
        )
    except ToolDefinitionError as error:  # a name, namespace or schema toolfx refuses
        raise PydanticAIToolError(tool.name, str(error)) from error


def _unsupported(tool: Tool[Any]) -> str | None:
    if tool.takes_ctx:
        return "it takes a pydantic-ai RunContext, which only an agent run gives"
    if tool.prepare is not None:
        return "its `prepare` function needs a pydantic-ai RunContext"
    if tool.args_validator is not None:
        return "its arguments validator needs a pydantic-ai RunContext"
    if tool.requires_approval:
        return "it requires pydantic-ai's approval: ask for it with a toolfx rule instead"
    return None


def _body(tool: Tool[Any]) -> Callable[[FrozenJson, ToolRunContext], object]:
    """The toolfx body: validate with the tool's pydantic validator, call, make the value JSON."""
    schema = tool.function_schema
    name = tool.name

    def run(args: FrozenJson, ctx: ToolRunContext) -> Outcome | Awaitable[Outcome]:
        try:
            validated: dict[str, Any] = schema.validator.validate_python(thaw_json(args))
        except ValidationError as error:
            return _failure(ErrorCode.INVALID_ARGS, f"Invalid arguments for tool `{name}`: {error}")
        positional = [validated.pop(field) for field in schema.positional_fields]
        if schema.var_positional_field is not None:
            positional.extend(validated.pop(schema.var_positional_field))
        try:
            returned = schema.function(*positional, **validated)
        except Exception as error:  # the tool's own failure: the model is told, the turn goes on
            return _raised(name, error)
        if schema.is_async:
            return _awaited(name, returned)
        return _json_value(name, returned)

    return run


async def _awaited(name: str, returned: Awaitable[object]) -> Outcome:
    try:
        value = await returned
    except Exception as error:  # the tool's own failure: the model is told, the turn goes on
        return _raised(name, error)
    return _json_value(name, value)


def _json_value(name: str, value: object) -> Outcome:
    if isinstance(value, ToolReturn):
        value = value.return_value
    try:
        return Success(to_jsonable_python(value))
    except PydanticSerializationError as error:
        message = f"`{name}` returned a value that is not JSON: {error}"
        return _failure(ErrorCode.INVALID_TOOL_OUTPUT, message)


def _raised(name: str, error: Exception) -> Outcome:
    if isinstance(error, ModelRetry):
        return Failure(ToolFailure(error.message))
    return Failure(ToolFailure(f"`{name}` failed: {type(error).__name__}: {error}"))


def _failure(code: ErrorCode, message: str) -> Outcome:
    return Failure(ToolFailure.of(code, message))
