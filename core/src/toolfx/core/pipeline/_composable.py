"""The pipeline in returns' shape: compose calls with returns' combinators, run them anywhere."""

from __future__ import annotations

from typing import TYPE_CHECKING, Never, TypeVar

from returns.context import RequiresContextFutureResult
from returns.future import FutureResult
from returns.io import IOSuccess
from returns.result import Failure, Result, Success
from returns.unsafe import unsafe_perform_io

from toolfx.core.pipeline._call import run_call
from toolfx.core.runtime import Description
from toolfx.core.tools import ToolExecutionSuccess

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.pipeline._call import ToolCall
    from toolfx.core.registry import Catalog
    from toolfx.core.runtime import Runtime
    from toolfx.core.tools import ToolFailure

__all__ = ["call_tool", "described", "lifted", "lifted_result"]

A = TypeVar("A")
E = TypeVar("E")


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
