"""Building results: failures with a code and a model-facing message, and defects as failures."""

from __future__ import annotations

import traceback
from typing import Final

from toolfx.core.json import FrozenJson, frozen_dict_of, frozen_list_of, snapshot_json
from toolfx.core.tools._content import text
from toolfx.core.tools._failure import (
    ApprovalDeferred,
    ErrorCode,
    PermissionDeclined,
    ToolErrorInfo,
    ToolFailure,
)
from toolfx.core.tools._results import ToolExecutionFailure

__all__ = [
    "MAX_TRACEBACK_CHARS",
    "aborted",
    "defect",
    "failed",
    "from_failure",
    "pending",
    "printable",
    "raised",
    "waiting_for",
]

MAX_TRACEBACK_CHARS: Final = 8_000
"""How much of a defect's traceback its failure details keep (the end, where it was raised)."""


def failed(code: ErrorCode, message: str, details: FrozenJson = None) -> ToolExecutionFailure:
    """A failure result whose content is its message."""
    return from_failure(ToolFailure(message, ToolErrorInfo(code, details)))


def from_failure(failure: ToolFailure) -> ToolExecutionFailure:
    """The failure result of a typed failure (a body's, or the pipeline's)."""
    return ToolExecutionFailure(failure, text(failure.message))


def aborted(name: str, reason: str | None, *, body_started: bool) -> ToolExecutionFailure:
    """A cancelled call: ABORTED once its body started, ABORTED_BEFORE_DISPATCH before."""
    why = reason or "cancelled"
    if body_started:
        return failed(ErrorCode.ABORTED, f"`{name}` was cancelled: {why}")
    return failed(
        ErrorCode.ABORTED_BEFORE_DISPATCH, f"`{name}` was cancelled before it started: {why}"
    )


def pending(message: str, waiting_for: tuple[str, ...]) -> ToolExecutionFailure:
    """An APPROVAL_PENDING failure: `message`, and the call ids whose asks wait for an answer."""
    ids = frozen_list_of([printable(call_id) for call_id in waiting_for])
    return failed(
        ErrorCode.APPROVAL_PENDING, printable(message), frozen_dict_of({"waitingFor": ids})
    )


def waiting_for(failure: ToolFailure) -> tuple[str, ...]:
    """The call ids an APPROVAL_PENDING failure waits on (none for any other failure)."""
    details = failure.info.details
    if failure.info.code is not ErrorCode.APPROVAL_PENDING or not isinstance(details, dict):
        return ()
    ids = details.get("waitingFor")
    return tuple(i for i in ids if isinstance(i, str)) if isinstance(ids, list) else ()


def printable(message: str) -> str:
    """`message` as valid UTF-8: a lone surrogate (from an exception's text) written as \\udXXX."""
    if message.isascii():
        return message
    return message.encode("utf-8", "backslashreplace").decode("utf-8")


def defect(error: BaseException, where: str) -> ToolExecutionFailure:
    """An unexpected exception as a JSON-safe failure; the traceback goes in the details."""
    trace = printable("".join(traceback.format_exception(error))[-MAX_TRACEBACK_CHARS:])
    details = snapshot_json(
        {"exception": type(error).__qualname__, "where": where, "traceback": trace}
    ).value_or(None)
    return failed(
        ErrorCode.UNEXPECTED_ERROR,
        printable(f"{where} failed unexpectedly: {type(error).__name__}: {_text_of(error)}"),
        details,
    )


def _text_of(error: BaseException) -> str:
    try:  # an exception's own __str__ (or its argument's) may raise, e.g. on a huge int
        return str(error)
    except Exception:
        return "<exception str() failed>"


def raised(error: BaseException, where: str) -> ToolExecutionFailure | None:
    """The failure a raised exception stands for, or None for an interrupt (re-raise it).

    A decline is DENIED and a deferred ask APPROVAL_PENDING, also inside an exception group (from
    a task group) whose other members are errors (a deferred ask first: the call has not
    finished); any other Exception is a defect of `where`.
    """
    if isinstance(error, PermissionDeclined):
        return failed(ErrorCode.DENIED, printable(f"Denied: {_text_of(error)}"))
    if isinstance(error, ApprovalDeferred):
        return pending(error.message, error.waiting_for)
    if isinstance(error, BaseExceptionGroup) and not isinstance(error, Exception):
        decided, rest = error.split((ApprovalDeferred, PermissionDeclined))
        if decided is None or not (rest is None or isinstance(rest, Exception)):
            return None
        deferred, _ = decided.split(ApprovalDeferred)
        first: BaseException = decided if deferred is None else deferred
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        return raised(first, where)
    if isinstance(error, Exception):
        return defect(error, where)
    return None
