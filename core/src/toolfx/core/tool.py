"""Tool definitions: typed arguments and a declared output, tied to the body by one declaration."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, Generic, TypeAlias, final

from returns.result import Result
from typing_extensions import TypeForm, TypeVar

from toolfx.core.content import ContentBlock, TextBlock
from toolfx.core.context import ToolCallIdentity, ToolRunContext
from toolfx.core.failure import ToolFailure
from toolfx.core.json import JsonValue
from toolfx.core.output_limits import OutputLimits
from toolfx.core.presentation import ToolCallView, ToolResultView
from toolfx.core.results import DurableResult, ToolExecutionResult
from toolfx.core.schema import ValueSchema, schema_of
from toolfx.core.tool_errors import ToolDefinitionError
from toolfx.core.with_content import WithContent

__all__ = [
    "TOOL_NAME_PATTERN",
    "Body",
    "Output",
    "ToolDefinition",
    "ToolDefinitionError",
    "ToolOptions",
    "define_tool",
    "render_json",
]

ArgsT = TypeVar("ArgsT")
OutT = TypeVar("OutT")
# An Output that renders with no look at the arguments is an Output[object, ...]: contravariance
# then lets one such value serve tools of any argument type (defaults need one on both).
Args_contra = TypeVar("Args_contra", contravariant=True, default=object)
ValueT = TypeVar("ValueT", default=object)

_BodyValue: TypeAlias = (
    OutT | WithContent[OutT] | Result[OutT, ToolFailure] | Result[WithContent[OutT], ToolFailure]
)
"""What a body gives: its value (or `WithContent` of it), or a `Result` of either."""

Body: TypeAlias = Callable[[ArgsT, ToolRunContext], _BodyValue[OutT] | Awaitable[_BodyValue[OutT]]]
"""A tool body: typed arguments and the run context to its value, from a plain or async def."""

TOOL_NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a tool name (and a namespace) must match in full."""


_COMPACT_JSON: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def render_json(args: object, value: object) -> tuple[ContentBlock, ...]:
    """The default renderer: a string as itself, anything else as compact JSON text.

    The pipeline hands it the checked frozen JSON of the value (not the typed value), so a
    dataclass, tuple, enum or TypedDict output renders as the JSON its schema describes.
    """
    if isinstance(value, str):
        return (TextBlock(value),)
    if type(value) is int:
        return (TextBlock(int.__repr__(value)),)  # what the encoder writes, without it
    return (TextBlock(_COMPACT_JSON.encode(value)),)


@final
@dataclass(frozen=True, slots=True)
class Output(Generic[Args_contra, ValueT]):
    """A tool's declared output: its type, the model-content renderer and presentation meta."""

    type: TypeForm[ValueT]
    render: Callable[[Args_contra, ValueT], Sequence[ContentBlock]] = render_json
    presentation_meta: Callable[[Args_contra, ValueT], JsonValue] | None = None
    schema: ValueSchema[ValueT] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "schema", schema_of(self.type))


@final
@dataclass(frozen=True, slots=True)
class ToolOptions:
    """Registration options: namespace, Code Mode membership, and the permission action."""

    namespace: str | None = None
    codemode: bool = True
    permission: str | None = None


@final
@dataclass(frozen=True, slots=True)
class ToolDefinition(Generic[ArgsT, OutT]):
    """One frozen tool: schema, body, output contract, scheduling and presentation callbacks.

    The body returns OutT or `Result[OutT, ToolFailure]` (or `WithContent[OutT]` in their place,
    to give the model content itself), from a plain or an `async def`; a plain
    body that blocks (file or network I/O) says `blocking=True` so async interpreters run it in
    a thread. `timeout` is in seconds. `output_limits` bounds the text its results show the
    model (None: its Location's limits); no tool is unbounded, one may only declare larger limits.
    """

    name: str
    description: str
    parameters: ValueSchema[ArgsT]
    output: Output[ArgsT, OutT]
    execute: Callable[[ArgsT, ToolRunContext], object]
    finalize_content: (
        Callable[[ToolCallIdentity, ToolExecutionResult], Sequence[ContentBlock] | None] | None
    ) = None
    timeout: float | None = None
    is_concurrency_safe: Callable[[ArgsT], bool] | None = None
    present_call: Callable[[ArgsT], ToolCallView | None] | None = None
    present_result: Callable[[ArgsT, DurableResult], ToolResultView | None] | None = None
    options: ToolOptions = ToolOptions()
    blocking: bool = False
    output_limits: OutputLimits | None = None
    """How much text its results show the model (None: the Location's limits)."""

    def __post_init__(self) -> None:
        _check_name(self.name, self.name, "name")
        if self.options.namespace is not None:
            _check_name(self.name, self.options.namespace, "options.namespace")
        if not isinstance(self.description, str):
            raise ToolDefinitionError(self.name, "description", "must be a string")
        if self.timeout is not None and not (
            isinstance(self.timeout, int | float)
            and math.isfinite(self.timeout)
            and self.timeout > 0
        ):
            raise ToolDefinitionError(
                self.name,
                "timeout",
                f"must be a positive, finite number of seconds, not {self.timeout!r}",
            )
        if self.output_limits is not None and not isinstance(self.output_limits, OutputLimits):
            raise ToolDefinitionError(
                self.name,
                "output_limits",
                f"must be an OutputLimits or None, not {self.output_limits!r}",
            )
        root = self.parameters.json_schema
        if not (isinstance(root, dict) and root.get("type") == "object"):
            raise ToolDefinitionError(
                self.name,
                "parameters",
                "must describe a JSON object (a TypedDict or a frozen dataclass), "
                f"not {self.parameters.type_form!r}",
            )


def _check_name(tool: str, name: str, field_name: str) -> None:
    if not isinstance(name, str) or TOOL_NAME_PATTERN.fullmatch(name) is None:
        raise ToolDefinitionError(tool, field_name, f"{name!r} must match ^[A-Za-z0-9_-]{{1,64}}$")


def define_tool(
    *,
    name: str,
    description: str,
    parameters: TypeForm[ArgsT],
    output: Output[ArgsT, OutT],
    execute: Body[ArgsT, OutT],
    finalize_content: (
        Callable[[ToolCallIdentity, ToolExecutionResult], Sequence[ContentBlock] | None] | None
    ) = None,
    timeout: float | None = None,
    is_concurrency_safe: Callable[[ArgsT], bool] | None = None,
    present_call: Callable[[ArgsT], ToolCallView | None] | None = None,
    present_result: Callable[[ArgsT, DurableResult], ToolResultView | None] | None = None,
    options: ToolOptions = ToolOptions(),
    blocking: bool = False,
    output_limits: OutputLimits | None = None,
) -> ToolDefinition[ArgsT, OutT]:
    """Define a tool whose body, renderer and presenters are checked against its declarations."""
    return ToolDefinition(
        name=name,
        description=description,
        parameters=schema_of(parameters),
        output=output,
        execute=execute,
        finalize_content=finalize_content,
        timeout=timeout,
        is_concurrency_safe=is_concurrency_safe,
        present_call=present_call,
        present_result=present_result,
        options=options,
        blocking=blocking,
        output_limits=output_limits,
    )
