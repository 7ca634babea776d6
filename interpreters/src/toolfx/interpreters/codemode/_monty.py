"""Monty's engine: Code Mode programs in sandboxed, crash-isolated worker processes.

It is the engine a runtime gets by default, when Monty (`pydantic_monty`, the `codemode` extra)
imports. This module imports without Monty: the session, the shared pool and everything that
drives Monty load when a program starts.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import final

from toolfx.core.runtime import CodeEngine, CodeLimits, CodeProgram, CodeSession
from toolfx.interpreters.codemode._unavailable import UnavailableEngine

with contextlib.suppress(ImportError):  # without the `codemode` extra: see `default_engine`
    from pydantic_monty import Monty  # the `pool` field's type, read by get_type_hints

__all__ = ["MontyEngine", "default_engine"]


@final
@dataclass(frozen=True, slots=True)
class MontyEngine:
    """Runs Code Mode programs in Monty's workers: the process-wide pool, or `pool` if given.

    Each program is type-checked against its stubs, then runs under `limits` (time as Monty's
    feed duration limit, which counts only the program's own computing; memory; recursion;
    output) and at most `suspensions` pauses for the host (tool calls, their results, clock
    reads, sleeps; past it the program fails the `tool_calls` limit). A given `pool` must be
    open (entered) and stays the caller's to close.
    """

    limits: CodeLimits = field(default_factory=CodeLimits)
    pool: Monty | None = field(default=None, kw_only=True)
    suspensions: int = field(default=100_000, kw_only=True)

    def __post_init__(self) -> None:
        if type(self.suspensions) is not int or self.suspensions < 1:
            raise ValueError(
                f"MontyEngine.suspensions must be a positive int, not {self.suspensions!r}"
            )

    def start(self, program: CodeProgram) -> CodeSession:
        """A session for `program`; no worker is taken until `begin`."""
        from toolfx.interpreters.codemode._monty_pool import (  # noqa: PLC0415 (loads Monty)
            shared_pool,
        )
        from toolfx.interpreters.codemode._monty_session import (  # noqa: PLC0415 (loads Monty)
            MontyCodeSession,
        )

        pool = self.pool
        return MontyCodeSession(
            program, shared_pool if pool is None else (lambda: pool), self.suspensions
        )


def default_engine() -> CodeEngine:
    """Monty's engine when the `codemode` extra is installed, else one that says to install it."""
    try:
        import pydantic_monty  # noqa: F401, PLC0415 (optional: the `codemode` extra)
    except ImportError:
        return UnavailableEngine()
    return MontyEngine()
