"""The engine of a runtime that has none: each program fails `unavailable`, naming the fix."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, final

from toolfx.core.runtime import (
    CodeLimits,
    CodeProgram,
    CodeSession,
    HostError,
    HostValue,
    ProgramFailed,
    ProgramStep,
)

__all__ = ["UnavailableEngine"]

_MISSING: Final = (
    "Code Mode needs an engine: install the `codemode` extra "
    "(pip install 'toolfx-interpreters[codemode]', which brings Monty), "
    "or give the runtime one with `code=`"
)


@final
@dataclass(frozen=True, slots=True)
class UnavailableEngine:
    """An engine that runs nothing: each program fails `unavailable` with `reason`."""

    reason: str = _MISSING
    limits: CodeLimits = field(default_factory=CodeLimits)

    def start(self, program: CodeProgram) -> CodeSession:
        """A session whose program fails at once."""
        return _Refused(self.reason)


@final
@dataclass(frozen=True, slots=True)
class _Refused:
    reason: str

    def begin(self) -> ProgramStep:
        return ProgramFailed("unavailable", self.reason)

    def answer_calls(self, answers: Mapping[int, HostValue | HostError]) -> ProgramStep:
        return ProgramFailed("unavailable", self.reason)

    def answer_clock(self, seconds: float) -> ProgramStep:
        return ProgramFailed("unavailable", self.reason)

    def answer_sleep(self) -> ProgramStep:
        return ProgramFailed("unavailable", self.reason)

    def stop(self) -> None:
        """Nothing runs, so nothing to stop."""

    def close(self) -> None:
        """Nothing is held."""
