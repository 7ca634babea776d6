"""The scripted Code Mode engine: programs whose host calls a test writes down, with no worker.

A `ScriptedCode` engine maps exact program text to a script: a generator function that yields
`Pause`s and receives their answers, its return value being the program's value. A host call
gets the value the host answers, or raises the exception its `HostError` names, so a script can
catch it as a program would; gathered calls answer together, raising the first failure in order
(as `asyncio.gather` does). A call to a name that is not one of the program's functions raises
`NameError` at once and never reaches the host, as in Monty (in a gather, before any call of it
is handed out). Printed text is kept and bounded by the program's `output_bytes`, and a
program longer than its `program_chars` never runs (as in Monty); the limits only an engine sees
(time, memory, recursion) and a worker crash are scripted outright.
Each step is pure Python with no IO, so a script behaves the same under every interpreter.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, replace
from typing import Final, Literal, assert_never, final

from toolfx.core.runtime import (
    CallsWaiting,
    ClockWanted,
    CodeLimits,
    CodeProgram,
    HostCall,
    HostError,
    HostException,
    HostValue,
    ProgramFailed,
    ProgramFinished,
    ProgramStep,
    SleepWanted,
)
from toolfx.interpreters.codemode import BoundedOutput, OutputExceeded

__all__ = ["Pause", "Rejected", "Script", "ScriptedCode", "ScriptedSession"]

EngineLimit = Literal["time", "memory", "recursion"]
"""The limits only an engine can see a program run into (a script reports them with `exceed`)."""

_DEFAULT_LIMITS: Final = CodeLimits()
"""The limits of an engine given none."""

_STOPPED: Final = ProgramFailed("stopped", "the program was stopped")
"""What a method returns once the host has called `stop`."""

_RAISED: Final[Mapping[HostException, type[Exception]]] = {
    "NameError": NameError,
    "TypeError": TypeError,
    "PermissionError": PermissionError,
    "TimeoutError": TimeoutError,
    "RuntimeError": RuntimeError,
}
"""The Python exception a failed host call raises in the script, by the name its answer gives."""


@final
@dataclass(frozen=True, slots=True)
class _Call:
    function: str
    arguments: Mapping[str, object]
    positional: tuple[object, ...]


@final
@dataclass(frozen=True, slots=True)
class _Gather:
    calls: tuple[_Call, ...]


@final
@dataclass(frozen=True, slots=True)
class _Sleep:
    seconds: float


@final
@dataclass(frozen=True, slots=True)
class _Clock:
    pass


@final
@dataclass(frozen=True, slots=True)
class _Emit:
    text: str


@final
@dataclass(frozen=True, slots=True)
class _Exceed:
    limit: EngineLimit


@final
@dataclass(frozen=True, slots=True)
class _Crash:
    pass


_Move = _Call | _Gather | _Sleep | _Clock | _Emit | _Exceed | _Crash


@final
@dataclass(frozen=True, slots=True)
class Pause:
    """What a script yields: build one with `Pause.call`, `Pause.gather`, `Pause.sleep`, ..."""

    move: _Move

    @staticmethod
    def call(function: str, /, *positional: object, **arguments: object) -> Pause:
        """One host call; the script receives its value or has its exception raised."""
        return Pause(_Call(function, arguments, positional))

    @staticmethod
    def gather(*calls: Pause) -> Pause:
        """Host calls made together; the script receives their values in order (a list)."""
        moves = []
        for pause in calls:
            if not isinstance(pause.move, _Call):
                raise TypeError(f"Pause.gather takes Pause.call pauses, not {pause!r}")
            moves.append(pause.move)
        return Pause(_Gather(tuple(moves)))

    @staticmethod
    def sleep(seconds: float) -> Pause:
        """The program sleeps; the script resumes (receiving None) once the host says so."""
        return Pause(_Sleep(seconds))

    @staticmethod
    def clock() -> Pause:
        """The program reads the clock; the script receives the host's seconds."""
        return Pause(_Clock())

    @staticmethod
    def emit(text: str) -> Pause:
        """The program prints `text` (no pause: the script resumes at once, receiving None)."""
        return Pause(_Emit(text))

    @staticmethod
    def exceed(limit: EngineLimit) -> Pause:
        """The program runs into one of the limits the engine enforces (time, memory, recursion)."""
        return Pause(_Exceed(limit))

    @staticmethod
    def crash() -> Pause:
        """The worker running the program dies."""
        return Pause(_Crash())


Script = Callable[[], Generator[Pause, object, object]]
"""A generator function standing for a program: it yields pauses, its return value is the value."""


@final
@dataclass(frozen=True, slots=True)
class Rejected:
    """A program the checker refuses before anything runs: why, and where."""

    failure: Literal["syntax", "type"]
    message: str
    line: int | None = None
    column: int | None = None


@final
@dataclass(frozen=True, slots=True)
class _WaitingCalls:
    calls: tuple[HostCall, ...]
    gathered: bool


@final
@dataclass(frozen=True, slots=True)
class _WaitingClock:
    pass


@final
@dataclass(frozen=True, slots=True)
class _WaitingSleep:
    pass


_Waiting = _WaitingCalls | _WaitingClock | _WaitingSleep


@final
@dataclass(frozen=True, slots=True)
class _Send:
    value: object


@final
@dataclass(frozen=True, slots=True)
class _Throw:
    error: Exception


_Resume = _Send | _Throw


@final
class ScriptedSession:
    """One program run by a `ScriptedCode` engine: a `CodeSession` that shows what happened."""

    __slots__ = (
        "_began",
        "_calls",
        "_closed",
        "_outcome",
        "_output",
        "_program",
        "_run",
        "_script",
        "_stop_wanted",
        "_waiting",
    )

    def __init__(self, program: CodeProgram, script: Script | Rejected | None) -> None:
        self._program = program
        self._script = script
        self._run: Generator[Pause, object, object] | None = None
        self._began = False
        self._stop_wanted = False
        self._closed = False
        self._waiting: _Waiting | None = None
        self._outcome: ProgramFinished | ProgramFailed | None = None
        self._calls: list[HostCall] = []
        self._output = BoundedOutput(program.limits.output_bytes)

    @property
    def program(self) -> CodeProgram:
        """The program the host started."""
        return self._program

    @property
    def calls(self) -> tuple[HostCall, ...]:
        """Every host call the program made, in order."""
        return tuple(self._calls)

    @property
    def outcome(self) -> ProgramFinished | ProgramFailed | None:
        """How the program ended (None while it runs or if the host left it paused)."""
        return self._outcome

    @property
    def stopped(self) -> bool:
        """Whether the host called `stop`."""
        return self._stop_wanted

    @property
    def closed(self) -> bool:
        """Whether the host called `close`."""
        return self._closed

    def begin(self) -> ProgramStep:
        """Check the program (a `Rejected` entry fails here), then run it to its first pause."""
        if self._began:
            raise RuntimeError("begin was already called: a session runs its program once")
        self._began = True
        self._check_open()
        if self._stopping():
            return self._end(_STOPPED)
        text, limits = self._program.text, self._program.limits
        if len(text) > limits.program_chars:
            too_long = f"the program has {len(text)} characters; it may have {limits.program_chars}"
            return self._end(ProgramFailed("limit", too_long, limit="program"))
        script = self._script
        if script is None:
            return self._end(ProgramFailed("unavailable", _unmatched(self._program.text)))
        if isinstance(script, Rejected):
            failed = ProgramFailed(
                script.failure, script.message, line=script.line, column=script.column
            )
            return self._end(failed)
        self._run = script()
        return self._resume(_Send(None))

    def answer_calls(self, answers: Mapping[int, HostValue | HostError]) -> ProgramStep:
        """Resume the waiting calls: every one of them answered, by id, and nothing else."""
        waiting = self._waiting
        if not isinstance(waiting, _WaitingCalls):
            return self._misplaced(f"the program does not wait on calls ({self._state()})")
        waited = [call.id for call in waiting.calls]
        if sorted(answers) != waited:
            raise ValueError(f"the program waits on calls {waited}, not {sorted(answers)}")
        ordered = [answers[id_] for id_ in waited]
        for answer in ordered:
            if not isinstance(answer, HostValue | HostError):
                raise TypeError(f"a call's answer is a HostValue or a HostError, not {answer!r}")
        failures = [answer for answer in ordered if isinstance(answer, HostError)]
        if failures:
            return self._resume(_Throw(_RAISED[failures[0].exception](failures[0].message)))
        values = [answer.value for answer in ordered if isinstance(answer, HostValue)]
        return self._resume(_Send(values if waiting.gathered else values[0]))

    def answer_clock(self, seconds: float) -> ProgramStep:
        """Resume a clock read: the script receives `seconds`."""
        if not isinstance(self._waiting, _WaitingClock):
            return self._misplaced(f"the program does not read the clock ({self._state()})")
        return self._resume(_Send(seconds))

    def answer_sleep(self) -> ProgramStep:
        """Resume a sleep that has passed: the script receives None."""
        if not isinstance(self._waiting, _WaitingSleep):
            return self._misplaced(f"the program does not sleep ({self._state()})")
        return self._resume(_Send(None))

    def stop(self) -> None:
        """Ask the program to end: the method running or the next one returns `stopped`."""
        self._stop_wanted = True

    def close(self) -> None:
        """End the script (its `finally` blocks run) if it has not ended; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._waiting = None
        if self._run is not None:
            self._run.close()

    def _resume(self, resume: _Resume) -> ProgramStep:
        """Run the script from its pause with `resume` until it pauses or ends."""
        self._check_open()
        self._waiting = None
        run = self._run
        assert run is not None  # a session waits only after begin started the script
        while True:
            if self._stopping():
                return self._end(_STOPPED)
            try:
                match resume:
                    case _Send(value):
                        pause = run.send(value)
                    case _Throw(error):
                        pause = run.throw(error)
                    case _:
                        assert_never(resume)
            except StopIteration as finished:
                return self._end(ProgramFinished(finished.value))
            except Exception as error:  # the program's uncaught exception is its failure
                return self._end(_raised(error))
            if self._stopping():
                return self._end(_STOPPED)
            step = self._step(pause.move)
            if not isinstance(step, _Send | _Throw):
                return step
            resume = step

    def _misplaced(self, refusal: str) -> ProgramStep:
        """An answer the program does not wait for: `stopped` once stopped (the host may race
        its own `stop`), else refused."""
        if self._stopping() and self._outcome is None and not self._closed:
            return self._end(_STOPPED)
        raise RuntimeError(refusal)

    def _stopping(self) -> bool:
        """Whether `stop` was called (read afresh: another thread may call it at any time)."""
        return self._stop_wanted

    def _step(self, move: _Move) -> ProgramStep | _Resume:
        """The step a script's move makes, or what the script receives at once."""
        limits = self._program.limits
        match move:
            case _Emit(text):
                return self._printed(text, limits)
            case _Call():
                return self._wait_calls((move,), gathered=False)
            case _Gather(calls):
                return self._wait_calls(calls, gathered=True) if calls else _Send([])
            case _Sleep(seconds):
                self._waiting = _WaitingSleep()
                return SleepWanted(seconds)
            case _Clock():
                self._waiting = _WaitingClock()
                return ClockWanted()
            case _Exceed(limit):
                return self._end(ProgramFailed("limit", _exceeded(limit, limits), limit=limit))
            case _Crash():
                return self._end(ProgramFailed("crashed", "the worker running the program died"))
            case _:
                assert_never(move)

    def _wait_calls(self, moves: tuple[_Call, ...], *, gathered: bool) -> CallsWaiting | _Throw:
        """The calls handed to the host; a name that is not a tool raises at once, as in Monty."""
        unknown = [move.function for move in moves if move.function not in self._program.functions]
        if unknown:
            return _Throw(NameError(f"name {unknown[0]!r} is not a tool"))
        first = len(self._calls)
        calls = tuple(
            HostCall(first + offset, move.function, dict(move.arguments), move.positional)
            for offset, move in enumerate(moves)
        )
        self._calls.extend(calls)
        self._waiting = _WaitingCalls(calls, gathered)
        return CallsWaiting(calls)

    def _printed(self, text: str, limits: CodeLimits) -> ProgramStep | _Send:
        """Keep printed `text`, or fail the program when it goes past the output limit."""
        try:
            self._output("stdout", text)
        except OutputExceeded:
            message = _exceeded("output", limits)
            return self._end(ProgramFailed("limit", message, limit="output"))
        return _Send(None)

    def _end(self, step: ProgramFinished | ProgramFailed) -> ProgramFinished | ProgramFailed:
        """End the program with `step`, carrying what it printed."""
        ended = replace(step, output=self._output.text)
        self._outcome = ended
        self._waiting = None
        if self._run is not None:
            self._run.close()
        return ended

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the session is closed")
        if self._outcome is not None:
            raise RuntimeError(f"the program has ended ({self._state()})")

    def _state(self) -> str:
        """Where the program is, for a host that answers what it was not asked."""
        if self._outcome is not None:
            return f"it ended: {self._outcome.__class__.__name__}"
        match self._waiting:
            case None:
                return "it is not paused" if self._began else "begin was not called"
            case _WaitingCalls(calls):
                return f"it waits on calls {[call.id for call in calls]}"
            case _WaitingClock():
                return "it reads the clock"
            case _WaitingSleep():
                return "it sleeps"
            case _:
                assert_never(self._waiting)


@final
class ScriptedCode:
    """A Code Mode engine running scripts by exact program text; `sessions` keeps every run."""

    __slots__ = ("_limits", "_scripts", "_sessions")

    def __init__(
        self, scripts: Mapping[str, Script | Rejected], *, limits: CodeLimits = _DEFAULT_LIMITS
    ) -> None:
        self._scripts = dict(scripts)
        self._limits = limits
        self._sessions: list[ScriptedSession] = []

    @property
    def limits(self) -> CodeLimits:
        """The limits the host gives every program run by this engine."""
        return self._limits

    @property
    def sessions(self) -> tuple[ScriptedSession, ...]:
        """Every session started so far, in order."""
        return tuple(self._sessions)

    def start(self, program: CodeProgram) -> ScriptedSession:
        """A session for `program` (no script for its text: it fails `unavailable` at begin)."""
        session = ScriptedSession(program, self._scripts.get(program.text))
        self._sessions.append(session)
        return session


def _raised(error: Exception) -> ProgramFailed:
    """The failure of a program that raised `error` and did not catch it."""
    name = type(error).__name__
    shown = f"{name}: {error}" if str(error) else name
    message = f'Traceback (most recent call last):\n  File "<program>", in <module>\n{shown}'
    return ProgramFailed("exception", message, exception=name)


def _exceeded(limit: EngineLimit | Literal["output"], limits: CodeLimits) -> str:
    """The sentence saying which of its limits a program ran into."""
    match limit:
        case "time":
            return f"the program ran past its time limit ({limits.seconds:g} seconds)"
        case "memory":
            return f"the program ran past its memory limit ({limits.memory_bytes} bytes)"
        case "recursion":
            return f"the program ran past its recursion limit ({limits.recursion_depth} frames)"
        case "output":
            return f"the program printed past its output limit ({limits.output_bytes} bytes)"
        case _:
            assert_never(limit)


def _unmatched(text: str) -> str:
    """The failure message of a program no script stands for."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    shown = first if len(first) <= 60 else first[:57] + "..."
    return f"no script matches the program (first line {shown!r}, {len(text)} characters)"
