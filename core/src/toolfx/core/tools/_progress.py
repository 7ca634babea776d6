"""Progress events of running calls, checked where a body reports them."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from toolfx.core.runtime import ProgressEvent

if TYPE_CHECKING:
    from toolfx.core.tools._execution import ToolExecution

__all__ = ["progress_event"]


def progress_event(
    execution: ToolExecution, progress: float, total: float | None, message: str | None
) -> ProgressEvent:
    """The event of `execution`'s progress; a number that is not finite, or a message that is
    not a string, is refused with a `ValueError` naming it."""
    if message is not None and not isinstance(message, str):
        raise ValueError(f"the progress message must be a string, not {message!r}")
    return ProgressEvent(
        execution.call_id,
        execution.name,
        _finite("progress", progress),
        None if total is None else _finite("total", total),
        message,
    )


def _finite(what: str, number: object) -> float:
    if isinstance(number, bool) or not isinstance(number, int | float):
        raise ValueError(f"{what} must be a number, not {number!r}")
    if not math.isfinite(number):
        raise ValueError(f"{what} must be a finite number, not {number!r}")
    return float(number)
