"""One Code Mode program in a Monty worker: the `CodeSession` a `MontyEngine` starts.

Each blocking method runs the program until it pauses where the host must answer, however many
of Monty's own pauses that takes (one thread hop per step, not per call): a tool call is
answered with a future at once and collected, until every task of the program waits on futures
(Monty's `FutureSnapshot`): then the collected calls are the step, in the order the program made
them. A clock read or a sleep is a step of its own. Every other OS call (files, environment,
network, imports the checker did not resolve) gets Monty's default error, so the program
reaches nothing of the host's but its tool calls, clock and sleeps. A tool named without being
called (`f = get`) is bound to a host function of that name; other unknown names stay unbound.

Sleeps do not overlap: a sleep gathered with tool calls or other sleeps is its own step, taken
when the program reaches it, before the calls gathered with it are handed out (the steps have
no way to say "these calls, and meanwhile this sleep").

`stop` may come from any thread: it marks the session stopped and kills the worker of the step
running (its pid is read before each step, while this session holds the worker, so the pid
cannot be another session's); the step returns `stopped` and the pool replaces the worker.
`stop` never blocks; `close` gives a paused program's worker back to the pool (a short round
trip to the worker). A `stop` while `begin` waits for a free worker takes effect once it has one.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, NoReturn, final

from pydantic_monty import (
    ExternalSettledResult,
    FunctionSnapshot,
    FutureSnapshot,
    Monty,
    MontyComplete,
    MontyCrashedError,
    MontyRuntimeError,
    MontySession,
    MontySyntaxError,
    MontyTypingError,
    NameLookupSnapshot,
    SyncSnapshot,
)

from toolfx.core.runtime import (
    CallsWaiting,
    ClockWanted,
    CodeProgram,
    HostCall,
    HostError,
    HostValue,
    ProgramFailed,
    ProgramFinished,
    ProgramStep,
    SleepWanted,
)
from toolfx.interpreters.codemode._monty_clock import (
    CLOCK_FUNCTIONS,
    SLEEP_FUNCTIONS,
    ClockRead,
    ProgramClock,
    sleep_seconds,
)
from toolfx.interpreters.codemode._monty_failures import (
    crashed,
    cut_short,
    output_exceeded,
    raised,
    rejected,
    too_deep,
    unparsed,
)
from toolfx.interpreters.codemode._monty_output import BoundedOutput
from toolfx.interpreters.codemode._monty_pool import CHECKOUT_TURNS

__all__ = ["MontyCodeSession"]

PRELUDE: Final = "class PermissionError(OSError): ...\n"
"""Prepended to the stubs: Monty's checker lacks the builtin a denied tool call raises."""


@final
@dataclass(frozen=True, slots=True)
class _Calls:
    snapshot: FutureSnapshot
    ids: frozenset[int]


@final
@dataclass(frozen=True, slots=True)
class _Clock:
    snapshot: FunctionSnapshot
    read: ClockRead


@final
@dataclass(frozen=True, slots=True)
class _Sleep:
    snapshot: FunctionSnapshot


@final
class MontyCodeSession:
    """One program in a worker of `pool`: checked and run by `begin`, resumed by the answers."""

    def __init__(self, program: CodeProgram, pool: Callable[[], Monty], suspensions: int) -> None:
        self._program = program
        self._pool = pool
        self._suspensions = suspensions
        self._output = BoundedOutput(program.limits.output_bytes)
        self._clock = ProgramClock()
        self._calls: dict[int, HostCall] = {}
        """Calls answered with a future that no step has handed to the host yet."""
        self._pause: _Calls | _Clock | _Sleep | None = None
        self._begun = False
        self._lock = threading.Lock()
        self._session: MontySession | None = None
        self._stepping = False
        self._running: int | None = None
        """The worker's pid while a step runs (what `stop` kills)."""
        self._stopped = False

    def begin(self) -> ProgramStep:
        """Check the program against its stubs, then run it to its first pause (once)."""
        if self._begun:
            raise RuntimeError("begin: the program has begun already")
        self._begun = True
        if self._stopped:
            return self._end(self._stopped_step())
        limits = self._program.limits
        if len(self._program.text) > limits.program_chars:
            return self._end(
                ProgramFailed(
                    "limit",
                    f"The program has {len(self._program.text)} characters; "
                    f"it may have {limits.program_chars}.",
                    limit="program",
                )
            )
        try:
            session = self._checked_out()
        except (TimeoutError, RuntimeError) as error:
            return self._end(
                ProgramFailed("unavailable", f"No Monty worker could run the program: {error}")
            )
        if session is None:  # stopped while it waited for a worker
            return self._end(self._stopped_step())
        if not self._hold(session):
            session.__exit__(None, None, None)
            return self._stopped_step()
        text = self._program.text
        return self._step(lambda held: held.feed_start(text, print_callback=self._output))

    def _checked_out(self) -> MontySession | None:
        """A worker's session for this program, waiting for one in `CHECKOUT_TURNS` turns of the
        pool's checkout timeout, so a `stop` meanwhile is seen within a turn (None: stopped);
        TimeoutError once the last turn is over."""
        limits = self._program.limits
        turns = CHECKOUT_TURNS
        while True:
            session = self._pool().checkout(
                type_check=True,
                type_check_stubs=PRELUDE + self._program.stubs,
                type_check_format="concise",
                limits={
                    "max_memory": limits.memory_bytes,
                    "max_recursion_depth": limits.recursion_depth,
                    "max_feed_duration_secs": limits.seconds,
                    "max_suspensions": self._suspensions,
                },
                os_policy={"datetime": "call_host", "sleep": "call_host"},
            )
            try:
                session.__enter__()
            except TimeoutError:
                turns -= 1
                if self._stopped:
                    return None
                if turns == 0:
                    raise
                continue
            return session

    def answer_calls(self, answers: Mapping[int, HostValue | HostError]) -> ProgramStep:
        """Resume the waiting calls, by their ids, and run to the next pause."""
        pause = self._pause
        if not isinstance(pause, _Calls):
            return self._misplaced("answer_calls", "tool calls")
        if answers.keys() != pause.ids:
            raise ValueError(
                f"answer_calls: the program waits on calls {sorted(pause.ids)}, "
                f"not {sorted(answers)}"
            )
        results = {call: _settled(answer) for call, answer in answers.items()}
        return self._step(lambda _: pause.snapshot.resume(results))

    def answer_clock(self, seconds: float) -> ProgramStep:
        """Resume a clock read with the runtime's monotonic seconds."""
        pause = self._pause
        if not isinstance(pause, _Clock):
            return self._misplaced("answer_clock", "a clock read")
        value = self._clock.answer(pause.read, seconds)
        return self._step(lambda _: pause.snapshot.resume({"return_value": value}))

    def answer_sleep(self) -> ProgramStep:
        """Resume a sleep that has passed."""
        pause = self._pause
        if not isinstance(pause, _Sleep):
            return self._misplaced("answer_sleep", "a sleep")
        return self._step(lambda _: pause.snapshot.resume({"return_value": None}))

    def stop(self) -> None:
        """End the program now, from any thread: the step running returns `stopped`."""
        with self._lock:
            self._stopped = True
            if self._running is not None:
                _kill(self._running)

    def close(self) -> None:
        """Stop the program and give its worker back to the pool; idempotent."""
        with self._lock:
            self._stopped = True
            stepping = self._stepping
            if self._running is not None:
                _kill(self._running)
        if not stepping:
            self._release()

    def _hold(self, session: MontySession) -> bool:
        """Keep `session` as this program's, unless it was stopped meanwhile."""
        with self._lock:
            if not self._stopped:
                self._session = session
            return not self._stopped

    def _step(self, resume: Callable[[MontySession], SyncSnapshot]) -> ProgramStep:
        with self._lock:
            held = None if self._stopped else self._session
            if held is not None:
                self._stepping = True
                self._running = held.worker_pid
        if held is None:
            return self._end(self._stopped_step())
        self._pause = None
        try:
            step = self._run(lambda: resume(held))
        finally:
            with self._lock:
                self._stepping = False
                self._running = None
                stopped = self._stopped
        if stopped:
            return self._end(self._stopped_step())
        if isinstance(step, ProgramFinished | ProgramFailed):
            return self._end(step)
        return step

    def _run(self, resume: Callable[[], SyncSnapshot]) -> ProgramStep:
        try:
            snapshot = resume()
            while True:
                match snapshot:
                    case MontyComplete():
                        return self._finished(snapshot.output)
                    case FutureSnapshot():
                        return self._waiting(snapshot)
                    case NameLookupSnapshot():
                        snapshot = self._looked_up(snapshot)
                    case FunctionSnapshot() if not snapshot.is_os_function:
                        snapshot = self._called(snapshot)
                        if len(self._calls) > self._program.limits.tool_calls:
                            return self._too_many_calls()
                    case FunctionSnapshot():
                        paused = self._os_call(snapshot)
                        if isinstance(paused, ClockWanted | SleepWanted):
                            return paused
                        snapshot = paused
        except (MontyTypingError, MontySyntaxError, MontyRuntimeError, MontyCrashedError) as error:
            return self._failed(error)

    def _finished(self, value: object) -> ProgramFinished | ProgramFailed:
        """The program's value, unless Monty cut it short at the recursion depth."""
        limits = self._program.limits
        if cut_short(value, limits.recursion_depth):
            return too_deep(limits, self._output.text)
        return ProgramFinished(value, self._output.text)

    def _looked_up(self, snapshot: NameLookupSnapshot) -> SyncSnapshot:
        """A tool named but not called (`f = get`) is a host function; other names are unbound."""
        name = snapshot.variable_name
        if name in self._program.functions:
            return snapshot.resume(value=_host_function(name))
        return snapshot.resume()

    def _called(self, snapshot: FunctionSnapshot) -> SyncSnapshot:
        name = snapshot.function_name
        if name not in self._program.functions:
            return snapshot.resume(
                {"exc_type": "NameError", "message": f"name {name!r} is not a tool"}
            )
        self._calls[snapshot.call_id] = HostCall(
            snapshot.call_id, name, snapshot.kwargs, tuple(snapshot.args)
        )
        return snapshot.resume({"future": ...})

    def _too_many_calls(self) -> ProgramFailed:
        """More calls gathered at once than the program may make in all: none is handed out."""
        limit = self._program.limits.tool_calls
        said = f"The program gathered more than {limit} tool calls at once"
        return ProgramFailed("limit", said, limit="tool_calls", output=self._output.text)

    def _os_call(self, snapshot: FunctionSnapshot) -> ClockWanted | SleepWanted | SyncSnapshot:
        name = snapshot.function_name
        if name in CLOCK_FUNCTIONS:
            self._pause = _Clock(snapshot, ClockRead(name, tuple(snapshot.args)))
            return ClockWanted()
        if name in SLEEP_FUNCTIONS:
            seconds = sleep_seconds(tuple(snapshot.args))
            if isinstance(seconds, str):
                return snapshot.resume({"exc_type": "ValueError", "message": seconds})
            self._pause = _Sleep(snapshot)
            return SleepWanted(seconds)
        return snapshot.resume_not_handled()

    def _waiting(self, snapshot: FutureSnapshot) -> CallsWaiting:
        ids = sorted(snapshot.pending_call_ids)
        self._pause = _Calls(snapshot, frozenset(ids))
        return CallsWaiting(tuple(self._calls.pop(call) for call in ids))

    def _failed(
        self, error: MontyTypingError | MontySyntaxError | MontyRuntimeError | MontyCrashedError
    ) -> ProgramFailed:
        output = self._output.text
        if self._output.exceeded:
            return output_exceeded(self._program.limits, output)
        match error:
            case MontyTypingError():
                return rejected(error)
            case MontySyntaxError():
                return unparsed(error, output)
            case MontyRuntimeError():
                return raised(error, self._program.limits, self._suspensions, output)
            case MontyCrashedError():
                return crashed(error, self._program.limits, output)

    def _misplaced(self, method: str, wanted: str) -> ProgramStep:
        if self._stopped:
            return self._end(self._stopped_step())
        raise RuntimeError(f"{method}: the program is not waiting on {wanted}")

    def _stopped_step(self) -> ProgramFailed:
        return ProgramFailed("stopped", "The host stopped the program.", output=self._output.text)

    def _end(self, step: ProgramStep) -> ProgramStep:
        self._pause = None
        self._calls.clear()
        self._release()
        return step

    def _release(self) -> None:
        with self._lock:
            held, self._session = self._session, None
            self._stopped = True
        if held is not None:
            held.__exit__(None, None, None)


def _settled(answer: HostValue | HostError) -> ExternalSettledResult:
    match answer:
        case HostValue(value=value):
            return {"return_value": value}
        case HostError(exception=exception, message=message):
            return {"exc_type": exception, "message": message}


def _host_function(name: str) -> Callable[..., NoReturn]:
    """What a tool's name is bound to in the program: Monty calls the host by its `__name__`."""

    def host_function(*args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError(f"{name} runs as a step of its session, never in this process")

    host_function.__name__ = host_function.__qualname__ = name
    return host_function


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
