"""The process-runner capability: run a command in its own process group, bounded and killable."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, Protocol, final

if TYPE_CHECKING:
    from toolfx.core.runtime._cancel import CancelSignal

__all__ = [
    "SANDBOX_MODES",
    "CapturedOutput",
    "Confinement",
    "OutputSink",
    "OutputStream",
    "ProcessError",
    "ProcessOutcome",
    "ProcessRunner",
    "ProcessSpec",
    "SandboxMechanism",
    "SandboxMode",
]

SandboxMechanism = Literal["landlock", "bwrap"]
"""An OS mechanism that confines a command: Landlock rules or a bubblewrap namespace."""

SandboxMode = Literal["auto", "landlock", "bwrap", "off"]
"""How a host asks commands to be confined: the best mechanism available, one of them, or none."""

SANDBOX_MODES: Final[tuple[SandboxMode, ...]] = ("auto", "landlock", "bwrap", "off")
"""Every sandbox mode, in the order hosts list them."""

OutputStream = Literal["stdout", "stderr"]
"""The pipe a piece of a command's output came from."""

OutputSink = Callable[[OutputStream, bytes], Awaitable[None]]
"""Receives a running command's output as it comes: the pipe and the bytes of one read of it."""


@final
@dataclass(frozen=True, slots=True)
class Confinement:
    """What a confined command may touch; the runner enforces it with `mechanism` or refuses.

    Every path is absolute. Reads are allowed everywhere but `hidden`; writes only below
    `writable` (and a private temporary folder the runner makes for the call, as TMPDIR),
    except below `read_only`; no network unless `network`. Environment variables whose names
    match a `hidden_variables` pattern (`*` any text, upper and lower case alike) are removed.
    """

    mechanism: SandboxMechanism
    writable: tuple[str, ...]
    read_only: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    network: bool = False
    hidden_variables: tuple[str, ...] = ()


@final
@dataclass(frozen=True, slots=True)
class ProcessSpec:
    """A command to run: argv, working directory, environment, limits and the kill grace."""

    argv: tuple[str, ...]
    cwd: str
    timeout: float
    output_limit: int
    """Bytes kept per stream in the outcome; the rest is counted (and given to the run's sink)."""
    env: Mapping[str, str] | None = None
    """The whole environment of the child; None inherits the runner's."""
    kill_grace: float = 2.0
    """Seconds between SIGTERM to the process group and SIGKILL."""
    confinement: Confinement | None = None
    """The sandbox the command runs in; None runs it unconfined."""
    stderr_to_stdout: bool = False
    """Whether the child's stderr is its stdout pipe (as `2>&1`): one stream, in the order the
    command wrote it; the outcome's stderr is then empty."""


@final
@dataclass(frozen=True, slots=True)
class CapturedOutput:
    """The first bytes of one stream and how many bytes the stream carried in all."""

    data: bytes
    total: int

    @property
    def lost(self) -> int:
        """How many bytes were produced beyond the limit and not kept."""
        return self.total - len(self.data)


@final
@dataclass(frozen=True, slots=True)
class ProcessOutcome:
    """How a process ended: exit code or killing signal, its output, and whether it was stopped."""

    exit_code: int | None
    """The exit status; None when a signal ended the process."""
    signal: int | None
    """The number of the signal that ended the process, if one did."""
    stdout: CapturedOutput
    stderr: CapturedOutput
    timed_out: bool
    cancelled: bool
    duration: float


class ProcessError(Exception):
    """A process could not be started: the command and the reason."""

    __module__ = "toolfx.core"

    def __init__(self, argv: tuple[str, ...], reason: str) -> None:
        super().__init__(f"cannot run {argv[0] if argv else '(empty command)'!r}: {reason}")
        self.argv = argv
        self.reason = reason


class ProcessRunner(Protocol):
    """Runs commands; the process group is ended at the timeout or when the signal is set."""

    async def run(
        self, spec: ProcessSpec, signal: CancelSignal, output: OutputSink | None = None
    ) -> ProcessOutcome:
        """Run `spec` to its end; SIGTERM then SIGKILL to its group on timeout or cancellation.

        Every process the command starts ends with the run. A confinement the runner cannot
        enforce is a `ProcessError`, never an unconfined run. Each read of either pipe goes to
        `output` as it comes (every byte, whatever `output_limit`), one call at a time, in the
        order the runner read them; the runner waits for each call, so a slow sink slows the
        command and loses nothing. An exception from `output` ends the run (the group is
        killed) and propagates.
        """
        ...

    def sandboxes(self) -> frozenset[SandboxMechanism]:
        """The confinement mechanisms this runner can enforce on this machine."""
        ...
