"""The deterministic interpreter's process table: scripted commands that run on the virtual clock.

A `ScriptedProcesses` table matches each command against its scripts in order: an argv tuple matches
exactly, a string matches the command of a shell's `-c` (argv `(shell, "-c", command)`), a callable
is asked with the argv. Running a script writes its output at once (kept up to the output limit and
counted in full, as the real runners do; handed to the run's sink as reads of at most `READ_CHUNK`
bytes, stdout's then stderr's; with `stderr_to_stdout`, stderr's bytes follow stdout's on stdout),
then takes `duration` virtual seconds. At the timeout, or when the signal is set, the group gets
SIGTERM: a script that ignores it dies of SIGKILL `kill_grace` virtual seconds later (unless it ends
first), any other dies of SIGTERM at once. Each run is recorded in the trace as `process` events,
with its confinement. The table enforces the `sandboxes` it is given (none by default): a spec
confined by another mechanism is refused with `ProcessError`, as a real runner refuses it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from signal import SIGKILL, SIGTERM
from typing import final

from toolfx.core.runtime import (
    Cancelled,
    CancelSignal,
    Confinement,
    OutputSink,
    OutputStream,
    ProcessError,
    ProcessOutcome,
    ProcessRunner,
    ProcessSpec,
    SandboxMechanism,
)
from toolfx.interpreters._process_common import (
    READ_CHUNK,
    BoundedCapture,
    Stop,
    ended,
    not_started,
    wait_limit,
)
from toolfx.interpreters.testing._scheduler import Scheduler
from toolfx.interpreters.testing._traps import Sleep

__all__ = ["ProcessMatcher", "ScriptedProcess", "ScriptedProcesses"]

ProcessMatcher = str | tuple[str, ...] | Callable[[tuple[str, ...]], bool]
"""A shell command (`-c`), an exact argv, or a predicate on the argv."""


@final
@dataclass(frozen=True, slots=True)
class ScriptedProcess:
    """What a scripted command does: its output, how it ends, how long it takes (virtual)."""

    stdout: bytes = b""
    stderr: bytes = b""
    exit_code: int = 0
    duration: float = 0.0
    ignores_sigterm: bool = False
    exit_signal: int | None = None
    """The signal it dies of by itself (then `exit_code` is not used)."""

    @property
    def returncode(self) -> int:
        """How it ends by itself, as subprocess says it: the exit code, or minus the signal."""
        return self.exit_code if self.exit_signal is None else -self.exit_signal


@final
class ScriptedProcesses:
    """A process table: scripts matched in order; `runs` keeps the specs it started, across runs."""

    __slots__ = ("_runs", "_sandboxes", "_scripts")

    def __init__(
        self,
        scripts: Iterable[tuple[ProcessMatcher, ScriptedProcess]] = (),
        *,
        sandboxes: Iterable[SandboxMechanism] = (),
    ) -> None:
        self._scripts = tuple(scripts)
        self._sandboxes = frozenset(sandboxes)
        self._runs: list[ProcessSpec] = []

    @property
    def runs(self) -> tuple[ProcessSpec, ...]:
        """The specs of the commands started so far (by any run), in order."""
        return tuple(self._runs)

    def on(self, scheduler: Scheduler) -> ProcessRunner:
        """This table as the process runner of one run's scheduler."""
        return _ScriptedRunner(self, scheduler)

    @property
    def sandboxes(self) -> frozenset[SandboxMechanism]:
        """The mechanisms this table claims to enforce (none unless given)."""
        return self._sandboxes

    def _find(self, argv: tuple[str, ...]) -> ScriptedProcess:
        for matcher, script in self._scripts:
            if _matches(matcher, argv):
                return script
        raise ProcessError(argv, f"no scripted process for {_shown(argv)}")

    async def _run(
        self,
        scheduler: Scheduler,
        spec: ProcessSpec,
        signal: CancelSignal,
        output: OutputSink | None,
    ) -> ProcessOutcome:
        shown = _shown(spec.argv)
        script = self._find(spec.argv)
        confinement = spec.confinement
        if confinement is not None and confinement.mechanism not in self._sandboxes:
            reason = f"the {confinement.mechanism} sandbox is not available on this machine"
            raise ProcessError(spec.argv, reason)
        if signal.is_cancelled():
            scheduler.record("process", f"{shown}: not started, cancelled")
            return not_started()
        self._runs.append(spec)
        started = scheduler.now
        scheduler.record("process", f"{shown}: started{_confined(confinement)}")
        stdout, stderr = script.stdout, script.stderr
        if spec.stderr_to_stdout:
            stdout, stderr = stdout + stderr, b""
        if output is not None:
            await _read(output, "stdout", stdout)
            await _read(output, "stderr", stderr)
        timeout = wait_limit(spec.timeout)
        stop: Stop | None
        try:
            await Sleep(min(script.duration, timeout), signal)
        except Cancelled:
            stop = "cancelled"
        else:
            stop = "timed out" if script.duration > timeout else None
        returncode = script.returncode
        if stop is not None:
            remaining = script.duration - (scheduler.now - started)
            returncode = await _terminated(script, remaining, wait_limit(spec.kill_grace))
        outcome = ended(
            returncode,
            _written(stdout, spec.output_limit),
            _written(stderr, spec.output_limit),
            stop,
            scheduler.now - started,
        )
        ending = f"exit {returncode}" if returncode >= 0 else f"signal {-returncode}"
        scheduler.record("process", f"{shown}: {ending}{f', {stop}' if stop else ''}")
        return outcome


@final
class _ScriptedRunner(ProcessRunner):
    """A table bound to the scheduler of one run."""

    __slots__ = ("_scheduler", "_table")

    def __init__(self, table: ScriptedProcesses, scheduler: Scheduler) -> None:
        self._table = table
        self._scheduler = scheduler

    async def run(
        self, spec: ProcessSpec, signal: CancelSignal, output: OutputSink | None = None
    ) -> ProcessOutcome:
        """Run the matching script on the virtual clock."""
        return await self._table._run(self._scheduler, spec, signal, output)

    def sandboxes(self) -> frozenset[SandboxMechanism]:
        """The mechanisms the table was given: a confinement with another one is refused."""
        return self._table.sandboxes


async def _terminated(script: ScriptedProcess, remaining: float, grace: float) -> int:
    """The return code of a script sent SIGTERM with `remaining` seconds of its own left."""
    if not script.ignores_sigterm:
        return -SIGTERM
    await Sleep(min(remaining, grace), None)
    return script.returncode if remaining <= grace else -SIGKILL


def _confined(confinement: Confinement | None) -> str:
    """How a run's confinement reads in the trace (nothing when it runs unconfined)."""
    if confinement is None:
        return ""
    lists = (
        ("writable", confinement.writable),
        ("read-only", confinement.read_only),
        ("hidden", confinement.hidden),
    )
    shown = "; ".join(f"{name} {', '.join(paths)}" for name, paths in lists if paths)
    network = "network on" if confinement.network else "network off"
    return f", confined by {confinement.mechanism} ({shown}; {network})"


def _shell_command(argv: tuple[str, ...]) -> str | None:
    """The command of a shell's `-c` (argv `(shell, "-c", command)`); None for any other argv."""
    return argv[2] if len(argv) == 3 and argv[1] == "-c" else None


def _matches(matcher: ProcessMatcher, argv: tuple[str, ...]) -> bool:
    if isinstance(matcher, str):
        return _shell_command(argv) == matcher
    if isinstance(matcher, tuple):
        return matcher == argv
    return matcher(argv)


def _shown(argv: tuple[str, ...]) -> str:
    command = _shell_command(argv)
    return repr(argv if command is None else command)


async def _read(output: OutputSink, stream: OutputStream, data: bytes) -> None:
    """Hand `data` to `output` as a runner reads it: pieces of at most `READ_CHUNK` bytes."""
    for start in range(0, len(data), READ_CHUNK):
        await output(stream, data[start : start + READ_CHUNK])


def _written(data: bytes, limit: int) -> BoundedCapture:
    capture = BoundedCapture(limit)
    capture.feed(data)
    return capture
