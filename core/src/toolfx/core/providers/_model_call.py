"""One tool call as a model sent it, for adapters that get calls one at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolfx.core.pipeline import ToolCall
from toolfx.core.providers._calls import one_call
from toolfx.core.runtime import CancelSignal

if TYPE_CHECKING:
    from toolfx.core.registry import Catalog

__all__ = ["model_call"]


def model_call(
    call_id: str,
    name: str,
    arguments: object,
    catalog: Catalog,
    signal: CancelSignal | None = None,
    *,
    strict_nulls: bool = True,
) -> ToolCall:
    """The `ToolCall` for a model's call whose arguments are JSON text or a value, as the wire
    formats' `calls` make them: blank text is `{}`, text that is not JSON a call failing
    INVALID_ARGS (never an exception), strict-mode nulls undone against the tool's schema."""
    shared = CancelSignal() if signal is None else signal
    return one_call(
        ToolCall,
        call_id,
        name,
        arguments,
        catalog=catalog,
        signal=shared,
        strict_nulls=strict_nulls,
    )
