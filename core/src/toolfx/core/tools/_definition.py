"""Tool definitions: typed arguments and a declared output, tied to the body by one declaration."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, final

from returns.result import Result
from typing_extensions import TypeForm, TypeVar

from toolfx.core.runtime import RemotePlacement
from toolfx.core.schema import schema_of
from toolfx.core.tools._content_text import render_json
from toolfx.core.tools._context import ToolRunContext
from toolfx.core.tools._failure import ToolFailure
from toolfx.core.tools._naming import ToolDefinitionError, check_name
from toolfx.core.tools._output_limits import OutputLimits
from toolfx.core.tools._with_content import WithContent

if TYPE_CHECKING:
    from toolfx.core.json import JsonValue
    from toolfx.core.schema import ValueSchema
    from toolfx.core.tools._cards import ToolCallView, ToolResultView
    from toolfx.core.tools._content import ContentBlock
    from toolfx.core.tools._context import ToolCallIdentity
    from toolfx.core.tools._results import DurableResult, ToolExecutionResult

__all__ = ["Body", "Output", "ToolDefinition", "ToolOptions", "define_tool"]

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

Body: TypeAlias = Callable[
    [ArgsT, ToolRunContext[Any]], _BodyValue[OutT] | Awaitable[_BodyValue[OutT]]
]
"""A tool body: typed arguments and the run context (with any declared dependencies) to its
value, from a plain or async def."""


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
    """Registration options: namespace, Code Mode membership, the permission action, and whether
    running a call twice does no more than running it once."""

    namespace: str | None = None
    codemode: bool = True
    permission: str | None = None
    idempotent: bool = False
    """Safe to run again: a journaled call of it left in doubt by a crash is run again, where
    any other tool's gets an IN_DOUBT failure telling the model it may have run."""


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
    execute: Callable[[ArgsT, ToolRunContext[Any]], object]
    finalize_content: (
        Callable[[ToolCallIdentity, ToolExecutionResult], Sequence[ContentBlock] | None] | None
    ) = None
    timeout: float | None = None
    is_concurrency_safe: Callable[[ArgsT], bool] | bool | None = None
    """Whether a call may overlap its siblings in a batch: True (every call with valid
    arguments), a classifier of the decoded arguments (only an exact True is parallel), or
    None/False (each call alone: the default)."""
    present_call: Callable[[ArgsT], ToolCallView | None] | None = None
    present_result: Callable[[ArgsT, DurableResult], ToolResultView | None] | None = None
    options: ToolOptions = ToolOptions()
    blocking: bool = False
    output_limits: OutputLimits | None = None
    """How much text its results show the model (None: the Location's limits)."""
    remote: RemotePlacement | None = None
    """Run its body on the runtime's remote runner, when it has one (None: always here)."""

    def __post_init__(self) -> None:
        check_name(self.name, self.name, "name")
        if self.options.namespace is not None:
            check_name(self.name, self.options.namespace, "options.namespace")
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
        safe = self.is_concurrency_safe
        if safe is False:  # never parallel: the same as no classifier
            object.__setattr__(self, "is_concurrency_safe", None)
        elif not (safe is None or safe is True or callable(safe)):
            raise ToolDefinitionError(
                self.name,
                "is_concurrency_safe",
                f"must be True, False, None or a function of the arguments, not {safe!r}",
            )
        if self.output_limits is not None and not isinstance(self.output_limits, OutputLimits):
            raise ToolDefinitionError(
                self.name,
                "output_limits",
                f"must be an OutputLimits or None, not {self.output_limits!r}",
            )
        if self.remote is not None and not isinstance(self.remote, RemotePlacement):
            raise ToolDefinitionError(
                self.name, "remote", f"must be a RemotePlacement or None, not {self.remote!r}"
            )
        root = self.parameters.json_schema
        if not (isinstance(root, dict) and root.get("type") == "object"):
            raise ToolDefinitionError(
                self.name,
                "parameters",
                "must describe a JSON object (a TypedDict or a frozen dataclass), "
                f"not {self.parameters.type_form!r}",
            )


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
    is_concurrency_safe: Callable[[ArgsT], bool] | bool | None = None,
    present_call: Callable[[ArgsT], ToolCallView | None] | None = None,
    present_result: Callable[[ArgsT, DurableResult], ToolResultView | None] | None = None,
    options: ToolOptions = ToolOptions(),
    blocking: bool = False,
    output_limits: OutputLimits | None = None,
    remote: RemotePlacement | None = None,
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
        remote=remote,
    )
