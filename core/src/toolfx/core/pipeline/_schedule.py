"""How a batch's calls are grouped: each exclusive call alone, parallel-safe runs together."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolfx.core.pipeline._call import ToolCall
    from toolfx.core.registry import Catalog, ExecutionMode

__all__ = ["schedule"]


def schedule(catalog: Catalog, calls: Sequence[ToolCall]) -> list[list[int]]:
    """Group call indexes: each exclusive call alone, each maximal run of parallel ones together."""
    groups: list[list[int]] = []
    previous: ExecutionMode = "exclusive"
    for index, call in enumerate(calls):
        mode = _mode(catalog, call)
        if mode == "parallel" and previous == "parallel":
            groups[-1].append(index)
        else:
            groups.append([index])
        previous = mode
    return groups


def _mode(catalog: Catalog, call: ToolCall) -> ExecutionMode:
    if call.arguments_error is not None:  # the call snapshotted its arguments when built
        return "exclusive"
    return catalog.execution_mode(call.name, call.arguments)  # type: ignore[arg-type]
