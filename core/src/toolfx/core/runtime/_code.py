"""Code Mode's engine capability: runs one model-written program, pausing at each host call.

An engine (Monty's workers in production, a scripted table under test) runs the program; every
tool call, clock read or sleep the program makes pauses it with a `ProgramStep` the host answers.
The host (the `run_code` transport) sends each tool call through the pipeline and resumes the
program with the values or the exceptions, so an engine never sees a tool, only names and JSON.
Every method blocks until the program pauses again; the transport calls them through
`Runtime.run_blocking`, and `stop` may be called from any thread while one of them runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal, Protocol, final

__all__ = [
    "HOST_EXCEPTIONS",
    "CallsWaiting",
    "ClockWanted",
    "CodeEngine",
    "CodeLimits",
    "CodeProgram",
    "CodeSession",
    "HostCall",
    "HostError",
    "HostException",
    "HostValue",
    "LimitName",
    "ProgramFailed",
    "ProgramFailure",
    "ProgramFinished",
    "ProgramStep",
    "SleepWanted",
]

HostException = Literal["NameError", "TypeError", "PermissionError", "TimeoutError", "RuntimeError"]
"""The exceptions a failed host call raises in the program (by the failure's code)."""

HOST_EXCEPTIONS: Final[tuple[HostException, ...]] = (
    "NameError",
    "TypeError",
    "PermissionError",
    "TimeoutError",
    "RuntimeError",
)

LimitName = Literal[
    "time", "memory", "recursion", "tool_calls", "pauses", "output", "sleep", "program"
]
"""Which of a program's limits it ran into."""


@final
@dataclass(frozen=True, slots=True)
class CodeLimits:
    """Host policy for one program (never the model's to choose): each bound is inclusive."""

    seconds: float = 30.0
    """Time the program itself may compute (waiting for its tool calls does not count)."""
    memory_bytes: int = 128 * 1024 * 1024
    """Heap the program may hold."""
    recursion_depth: int = 200
    """Depth of the program's own call stack."""
    tool_calls: int = 1_000
    """Tool calls the program may make in all."""
    parallel_calls: int = 8
    """Gathered parallel-safe calls that may run at once."""
    pauses: int = 10_000
    """Clock reads and sleeps the program may make in all (each is a round trip to the host)."""
    output_bytes: int = 64 * 1024
    """Bytes the program may print (UTF-8)."""
    sleep_seconds: float = 30.0
    """Seconds the program may sleep in all."""
    program_chars: int = 100_000
    """Characters of program text."""

    def __post_init__(self) -> None:
        for name in ("seconds", "sleep_seconds"):
            value = getattr(self, name)
            if not value > 0 or value == float("inf"):
                raise ValueError(f"CodeLimits.{name} must be a positive finite number, not {value}")
        for name in (
            "memory_bytes",
            "recursion_depth",
            "tool_calls",
            "parallel_calls",
            "pauses",
            "output_bytes",
            "program_chars",
        ):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"CodeLimits.{name} must be a positive int, not {value!r}")


@final
@dataclass(frozen=True, slots=True)
class CodeProgram:
    """What an engine runs: the text, the stubs it is checked against, the host functions."""

    text: str
    stubs: str
    """Python stubs declaring every host function (`async def`, keyword-only) and its types."""
    functions: frozenset[str]
    """The names the program may call as host functions."""
    limits: CodeLimits


@final
@dataclass(frozen=True, slots=True)
class HostCall:
    """One host function call the program is waiting on: its engine id, name and arguments."""

    id: int
    function: str
    arguments: Mapping[str, object]
    """The keyword arguments, as plain Python values."""
    positional: tuple[object, ...] = ()
    """Positional arguments (the stubs are keyword-only: any here make the call a TypeError)."""


@final
@dataclass(frozen=True, slots=True)
class CallsWaiting:
    """The program waits on these calls (gathered ones together), in the order it made them."""

    calls: tuple[HostCall, ...]


@final
@dataclass(frozen=True, slots=True)
class ClockWanted:
    """The program reads the clock: answer with `CodeSession.answer_clock`."""


@final
@dataclass(frozen=True, slots=True)
class SleepWanted:
    """The program sleeps: answer with `CodeSession.answer_sleep` once the time has passed."""

    seconds: float


@final
@dataclass(frozen=True, slots=True)
class ProgramFinished:
    """The program ran to its end: its last expression's value and what it printed."""

    value: object
    output: str = ""


ProgramFailure = Literal[
    "syntax", "type", "exception", "limit", "crashed", "stopped", "unavailable"
]
"""Why a program did not finish: rejected before running (syntax, type), raised, hit a limit,
lost its worker, was stopped by the host, or no engine could run it."""


@final
@dataclass(frozen=True, slots=True)
class ProgramFailed:
    """The program did not finish: why, a message for the model, and where if known."""

    failure: ProgramFailure
    message: str
    """For `syntax`/`type`: the diagnostics; for `exception`: the traceback; else a sentence."""
    limit: LimitName | None = None
    exception: str | None = None
    """The uncaught exception's type name (`exception` failures)."""
    line: int | None = None
    column: int | None = None
    output: str = ""


ProgramStep = CallsWaiting | ClockWanted | SleepWanted | ProgramFinished | ProgramFailed
"""Where a program is after the engine ran it as far as it could."""


@final
@dataclass(frozen=True, slots=True)
class HostValue:
    """A host call's answer: the value the call returns in the program (plain JSON values)."""

    value: object


@final
@dataclass(frozen=True, slots=True)
class HostError:
    """A host call's answer: the exception the call raises in the program."""

    exception: HostException
    message: str


class CodeSession(Protocol):
    """One program in an engine; each method (but `stop`) blocks until it pauses again."""

    def begin(self) -> ProgramStep:
        """Check the program against its stubs, then run it to its first pause (once)."""
        ...

    def answer_calls(self, answers: Mapping[int, HostValue | HostError]) -> ProgramStep:
        """Resume the waiting calls, by their ids, and run to the next pause."""
        ...

    def answer_clock(self, seconds: float) -> ProgramStep:
        """Resume a clock read with the runtime's monotonic seconds."""
        ...

    def answer_sleep(self) -> ProgramStep:
        """Resume a sleep that has passed."""
        ...

    def stop(self) -> None:
        """End the program now, from any thread; the method running returns `stopped`."""
        ...

    def close(self) -> None:
        """Release what the program holds (its worker); idempotent."""
        ...


class CodeEngine(Protocol):
    """Runs Code Mode programs: the runtime's `code` capability."""

    @property
    def limits(self) -> CodeLimits:
        """The limits every program run by this engine gets."""
        ...

    def start(self, program: CodeProgram) -> CodeSession:
        """A session for `program`; nothing runs until `begin`."""
        ...
