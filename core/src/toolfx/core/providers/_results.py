"""A turn's results paired with the calls they answer, for a wire format to render back.

`results(calls, results)` of every wire format takes the batch's `BatchResult` or the results
themselves, in call order (as `execute_batch` gives them); `paired` checks there is exactly one
result per call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias, final

from toolfx.core.tools import ToolExecutionFailure

if TYPE_CHECKING:
    from toolfx.core.pipeline import BatchResult, ToolCall
    from toolfx.core.tools import ContentBlock, ContextMessage, ToolExecutionResult

__all__ = ["Answer", "Results", "paired"]

Results: TypeAlias = "BatchResult | Sequence[ToolExecutionResult]"
"""A turn's results, in call order: a batch's, or a sequence of them."""


@final
@dataclass(frozen=True, slots=True)
class Answer:
    """One call and its result, as a wire format renders it."""

    call_id: str
    name: str
    content: tuple[ContentBlock, ...]
    is_error: bool


def paired(
    calls: Sequence[ToolCall], results: Results
) -> tuple[tuple[Answer, ...], tuple[ContextMessage, ...]]:
    """Each call's answer in order, and every result's additional contexts (after them)."""
    found = tuple(results) if isinstance(results, Sequence) else results.results
    if len(found) != len(calls):
        raise ValueError(f"{len(calls)} calls were given {len(found)} results: one each is needed")
    answers = tuple(
        Answer(call.call_id, call.name, result.content, isinstance(result, ToolExecutionFailure))
        for call, result in zip(calls, found, strict=True)
    )
    return answers, tuple(c for result in found for c in result.additional_contexts)
