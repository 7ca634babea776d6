"""What makes a tool a leaf: `define_leaf`, and how leaves present themselves (a completed card
travels as the result's meta, durable, so a replay renders it from the log without running)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from returns.result import Result, Success
from typing_extensions import TypeForm

from toolfx.core.records import result_view_from_json, result_view_to_json
from toolfx.core.tools import (
    ContentBlock,
    DurableResult,
    GenericResultCard,
    Output,
    ToolCallView,
    ToolDefinition,
    ToolFailure,
    ToolOptions,
    ToolResultView,
    ToolRunContext,
    define_tool,
)
from toolfx.leaves.workspace import WorkspaceLimits

__all__ = ["card_meta", "card_of_result", "define_leaf"]

A = TypeVar("A")
O = TypeVar("O")  # noqa: E741


def card_meta(card: Callable[[A, O], ToolResultView]) -> Callable[[A, O], Any]:
    """A `presentation_meta` projection: the completed card's wire form."""
    return lambda args, value: result_view_to_json(card(args, value))


def card_of_result(args: object, result: DurableResult) -> ToolResultView | None:
    """The completed card of a durable result: its meta's card, or the failure as a generic one."""
    if result.error is not None:
        return GenericResultCard(title="Failed", content=result.error.message)
    read = result_view_from_json(result.meta)
    return read.unwrap() if isinstance(read, Success) else None


def define_leaf(
    *,
    name: str,
    description: str,
    parameters: TypeForm[A],
    output: TypeForm[O],
    execute: Callable[[A, ToolRunContext], Awaitable[Result[O, ToolFailure]]],
    render: Callable[[A, O], Sequence[ContentBlock]],
    card: Callable[[A, O], ToolResultView],
    pending: Callable[[A], ToolCallView | None],
    limits: WorkspaceLimits,
    parallel: bool = False,
) -> ToolDefinition[A, O]:
    """A leaf: a typed async tool with a pending card from its arguments and a durable result
    card, its results bounded by `limits.model`; `parallel` marks a read-only leaf that may
    overlap its siblings (and, changing nothing, may run again after a crash)."""
    return define_tool(
        name=name,
        description=description,
        parameters=parameters,
        output=Output(output, render=render, presentation_meta=card_meta(card)),
        execute=execute,
        is_concurrency_safe=parallel,
        present_call=pending,
        present_result=card_of_result,
        output_limits=limits.model,
        options=ToolOptions(idempotent=parallel),
    )
