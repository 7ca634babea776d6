"""How a sub-call's result answers the program: its value, or the exception its code maps to."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from toolfx.core.json import thaw_json
from toolfx.core.runtime import HostError, HostValue
from toolfx.core.tools import ErrorCode, ToolExecutionSuccess

if TYPE_CHECKING:
    from collections.abc import Mapping

    from toolfx.core.runtime import HostException
    from toolfx.core.tools import ToolExecutionResult

__all__ = ["answer_of", "exception_of"]

_EXCEPTIONS: Final[Mapping[ErrorCode, HostException]] = {
    ErrorCode.UNKNOWN_TOOL: "NameError",
    ErrorCode.INVALID_ARGS: "TypeError",
    ErrorCode.DENIED: "PermissionError",
    ErrorCode.TOOL_TIMEOUT: "TimeoutError",
}


_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
"""The types of frozen JSON values that are their own plain copy."""


def exception_of(code: ErrorCode) -> HostException:
    """The exception a failure with `code` raises in the program (RuntimeError by default)."""
    return _EXCEPTIONS.get(code, "RuntimeError")


def answer_of(name: str, result: ToolExecutionResult) -> HostValue | HostError:
    """The program's answer: the decoded value, or an exception naming the tool and the code."""
    if isinstance(result, ToolExecutionSuccess):
        value = result.value
        return HostValue(value if type(value) in _SCALARS else thaw_json(value))
    code = result.error.code
    return HostError(exception_of(code), f"`{name}` failed ({code.value}): {result.error.message}")
