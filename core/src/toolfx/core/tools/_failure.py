"""Typed tool failures: the error channel's value, with a code for policy and diagnostics."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final, final

from toolfx.core.json import FrozenJson

__all__ = [
    "CALL_FAILURES",
    "ApprovalDeferred",
    "ErrorCode",
    "PermissionDeclined",
    "ToolErrorInfo",
    "ToolFailure",
]


@final
class ErrorCode(enum.StrEnum):
    """Why a tool call failed."""

    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    """The calling scope sees no tool of that name."""
    INVALID_ARGS = "INVALID_ARGS"
    """The arguments are not JSON or do not match the tool's parameters."""
    INVALID_TOOL_OUTPUT = "INVALID_TOOL_OUTPUT"
    """The body or a post-policy returned a value that does not match the declared output."""
    DENIED = "DENIED"
    """Policy, a guard, the user or a missing approval channel refused the call."""
    ABORTED_BEFORE_DISPATCH = "ABORTED_BEFORE_DISPATCH"
    """The caller cancelled before the body started."""
    ABORTED = "ABORTED"
    """The caller cancelled after the body had started."""
    TOOL_TIMEOUT = "TOOL_TIMEOUT"
    """The tool's own timeout ran out."""
    TOOL_ERROR = "TOOL_ERROR"
    """The body reported an expected, typed failure."""
    MISSING_DEPENDENCY = "MISSING_DEPENDENCY"
    """The tool declares dependencies its call and Location provide none of the type of."""
    BLOCKED = "BLOCKED"
    """A post-execute policy blocked the result; its feedback is the content."""
    OUTPUT_NOT_KEPT = "OUTPUT_NOT_KEPT"
    """The tool ran, but its output was over the limits and the spill store could not keep it."""
    UNEXPECTED_ERROR = "UNEXPECTED_ERROR"
    """A defect: an exception no stage expected (the traceback goes to observers)."""
    APPROVAL_PENDING = "APPROVAL_PENDING"
    """An ask was answered "later": the call has not done what it asked for; the host resumes
    it once the ask is answered (`details.waitingFor` lists the asking call ids)."""
    IN_DOUBT = "IN_DOUBT"
    """A journaled call started but its result was never committed: it may have run."""
    CALL_ID_CONFLICT = "CALL_ID_CONFLICT"
    """The journal already holds this call id for another tool or other arguments."""
    REMOTE_LOST = "REMOTE_LOST"
    """The worker or node running the body remotely died or could not be reached: the body may
    have partly run, and gave nothing back."""


class PermissionDeclined(BaseException):
    """The user declined an ask: raised through a leaf, never caught there, DENIED at the boundary.

    A BaseException, not an Exception, so that no `except Exception` in a tool body swallows it;
    unlike an interrupt, the pipeline turns it into a DENIED result (also inside an exception
    group). A decline with feedback is not this: a leaf returns it as a typed `ToolFailure` so
    the model reads the feedback and goes on.
    """

    __module__ = "toolfx.core"  # its public home, shown in tracebacks

    def __init__(self, permission: str, reason: str = "the user declined") -> None:
        super().__init__(f"permission {permission!r} declined: {reason}")
        self.permission = permission
        self.reason = reason


class ApprovalDeferred(BaseException):
    """An ask answered "later": raised through a leaf, never caught there, APPROVAL_PENDING at the
    boundary (like `PermissionDeclined`, a BaseException so that no `except Exception` hides it).

    Raise it before the effect the ask guards: the call is run again once the ask is answered.
    """

    __module__ = "toolfx.core"  # its public home, shown in tracebacks

    def __init__(self, message: str, waiting_for: tuple[str, ...]) -> None:
        super().__init__(message)
        self.message = message
        """What the call waits for, for the model and the host."""
        self.waiting_for = waiting_for
        """The ids of the calls whose asks wait for an answer (the call's own, or sub-calls')."""


CALL_FAILURES: Final[tuple[type[BaseException], ...]] = (
    Exception,
    PermissionDeclined,
    ApprovalDeferred,
)
"""What a call or a capability's thunk can fail with: errors, declines and deferred asks, never
interrupts."""


@final
@dataclass(frozen=True, slots=True)
class ToolErrorInfo:
    """Machine-readable failure detail: a code plus optional JSON details."""

    code: ErrorCode
    details: FrozenJson = None


@final
@dataclass(frozen=True, slots=True)
class ToolFailure:
    """A typed tool failure: a message for the model plus its machine-readable info."""

    message: str
    info: ToolErrorInfo = ToolErrorInfo(ErrorCode.TOOL_ERROR)

    @classmethod
    def of(cls, code: ErrorCode, message: str, details: FrozenJson = None) -> ToolFailure:
        """A failure with the given code, message and details."""
        return cls(message, ToolErrorInfo(code, details))

    @property
    def code(self) -> ErrorCode:
        """The failure's code."""
        return self.info.code
