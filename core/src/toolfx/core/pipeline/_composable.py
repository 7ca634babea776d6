"""The pipeline in returns' shape: compose calls with returns' combinators, run them anywhere."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Never, TypeVar

from returns.context import RequiresContextFutureResult
from returns.future import FutureResult
from returns.io import IOSuccess
from returns.result import Failure, Result, Success
from returns.unsafe import unsafe_perform_io

from toolfx.core.pipeline._call import ToolCall, run_call
from toolfx.core.registry import flat_name
from toolfx.core.runtime import CancelSignal, Description
from toolfx.core.tools import ErrorCode, ToolExecutionSuccess, ToolFailure

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.registry import Catalog
    from toolfx.core.runtime import Runtime
    from toolfx.core.tools import ToolDefinition

__all__ = ["call", "call_tool", "described", "lifted", "lifted_result"]

A = TypeVar("A")
E = TypeVar("E")
ArgsT = TypeVar("ArgsT")
OutT = TypeVar("OutT")


def call_tool(
    catalog: Catalog, call: ToolCall
) -> RequiresContextFutureResult[FrozenJson, ToolFailure, Runtime]:
    """One call through the whole pipeline: its value, or its typed failure."""

    def needs(runtime: Runtime) -> FutureResult[FrozenJson, ToolFailure]:
        async def outcome() -> Result[FrozenJson, ToolFailure]:
            result = await run_call(runtime, catalog, call)
            if isinstance(result, ToolExecutionSuccess):
                return Success(result.value)
            return Failure(result.error)

        return FutureResult(outcome())

    return RequiresContextFutureResult(needs)


def call(
    catalog: Catalog,
    tool: ToolDefinition[ArgsT, OutT],
    *,
    call_id: str,
    signal: CancelSignal | None = None,
) -> Callable[[ArgsT], RequiresContextFutureResult[OutT, ToolFailure, Runtime]]:
    """A typed call of `tool` in `catalog`: given its arguments, the call and its decoded output.

    `call(catalog, read, call_id="c1")({"path": "a"})`, or `.bind(call(catalog, read, ...))`.
    The call is the catalog's like any other (policies, guards, validation, limits); only its
    value is given back decoded into the tool's output type. A catalog that shows another
    definition under the tool's name fails the call with UNKNOWN_TOOL and runs nothing.
    (Arguments come second so mypy checks a dict literal against the tool's TypedDict: given
    beside the tool, mypy cannot infer the argument type from both.)
    """
    name = flat_name(tool)
    cancel = CancelSignal() if signal is None else signal

    def with_arguments(
        arguments: ArgsT,
    ) -> RequiresContextFutureResult[OutT, ToolFailure, Runtime]:
        if name in catalog and catalog.get(name) is not tool:
            failure = ToolFailure.of(
                ErrorCode.UNKNOWN_TOOL, f"The catalog's `{name}` is not the definition called"
            )
            return RequiresContextFutureResult.from_failure(failure)
        # arguments that do not encode go as they are: the pipeline says why they are invalid
        sent = tool.parameters.encode(arguments).value_or(arguments)
        request = ToolCall(call_id, name, sent, cancel)
        return call_tool(catalog, request).bind_result(partial(_decoded, tool))

    return with_arguments


def _decoded(tool: ToolDefinition[Any, OutT], value: FrozenJson) -> Result[OutT, ToolFailure]:
    """A successful call's checked value, decoded into the tool's output type."""
    return tool.output.schema.validate(value).alt(
        lambda problem: ToolFailure.of(ErrorCode.INVALID_TOOL_OUTPUT, str(problem))
    )


def described(
    composed: RequiresContextFutureResult[A, E, Runtime],
) -> Description[Result[A, E]]:
    """A composition of calls as a description, for any interpreter to run."""

    async def program(runtime: Runtime) -> Result[A, E]:
        # the interpreter is the edge of the world: the IO wrapper ends here
        outcome = await composed(runtime).awaitable()
        if isinstance(outcome, IOSuccess):
            return Success(unsafe_perform_io(outcome.unwrap()))
        return Failure(unsafe_perform_io(outcome.failure()))

    return Description(program)


def lifted(description: Description[A]) -> RequiresContextFutureResult[A, Never, Runtime]:
    """A description as returns' container over the Runtime; no failure (`Never`: widen it)."""
    return lifted_result(description.map(_succeeded))


def lifted_result(
    description: Description[Result[A, E]],
) -> RequiresContextFutureResult[A, E, Runtime]:
    """A description of a `Result` as returns' container over the Runtime: `described`'s inverse."""
    program = description.program
    return RequiresContextFutureResult(lambda runtime: FutureResult(program(runtime)))


def _succeeded(value: A) -> Result[A, Never]:
    return Success(value)
