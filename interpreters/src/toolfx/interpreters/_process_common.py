"""What every process runner shares: bounded capture, exit-status decoding and the kill policy.

A run ends when the process has exited and both pipes are closed, or is stopped at its timeout
or when its signal is set: SIGTERM to the whole process group; `kill_grace` seconds later, if
the output has not ended by then, SIGUSR1 to the supervisor (the group's leader, which kills
every process of the command), up to `SWEEP_WAIT` seconds for it; then SIGKILL to the group in
any case, and, once the leader is dead, at most `DRAIN_AFTER_KILL` seconds more of reading.
"""

from __future__ import annotations

import os
import signal
from typing import Final, Literal, final

from toolfx.core.runtime import CapturedOutput, ProcessError, ProcessOutcome, ProcessSpec

__all__ = [
    "DRAIN_AFTER_KILL",
    "READ_CHUNK",
    "SWEEP_WAIT",
    "BoundedCapture",
    "Stop",
    "checked_argv",
    "ended",
    "not_started",
    "signal_group",
    "spawn_error",
    "sweep_now",
    "wait_limit",
]

READ_CHUNK: Final = 1 << 16
"""Bytes asked of a pipe per read."""

SWEEP_WAIT: Final = 2.0
"""Seconds the supervisor is given to kill what is left before its group gets SIGKILL."""

DRAIN_AFTER_KILL: Final = 0.25
"""Seconds the pipes are still read after a stopped process's leader has died."""

Stop = Literal["timed out", "cancelled"]
"""Why a run was stopped before it ended by itself."""


@final
class BoundedCapture:
    """One stream's first `limit` bytes, and the count of every byte it carried."""

    __slots__ = ("_data", "_limit", "_total")

    def __init__(self, limit: int) -> None:
        self._limit = max(limit, 0)
        self._data = bytearray()
        self._total = 0

    def feed(self, chunk: bytes) -> None:
        """Count `chunk`; keep what still fits under the limit, drop the rest."""
        room = self._limit - len(self._data)
        if room > 0:
            self._data += chunk[:room]
        self._total += len(chunk)

    def captured(self) -> CapturedOutput:
        """What was kept so far, and the total so far."""
        return CapturedOutput(bytes(self._data), self._total)


def wait_limit(seconds: float) -> float:
    """A timeout or a grace as waited for: negative and NaN mean no wait; infinity stays."""
    return seconds if seconds > 0 else 0.0


def checked_argv(spec: ProcessSpec) -> tuple[str, ...]:
    """The command to start; an empty one is refused with `ProcessError`."""
    if not spec.argv:
        raise ProcessError(spec.argv, "the command is empty")
    return spec.argv


def spawn_error(spec: ProcessSpec, error: OSError) -> ProcessError:
    """The `ProcessError` for a failed start, naming the directory or the program at fault."""
    culprit = "working directory" if error.filename == spec.cwd else "program"
    reason = error.strerror or str(error)
    filename = spec.argv[0] if error.filename is None else error.filename
    return ProcessError(spec.argv, f"{culprit} {str(filename)!r}: {reason}")


def signal_group(pgid: int, signum: signal.Signals) -> None:
    """Send `signum` to the process group `pgid`; nothing if the group is already gone."""
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        return


def sweep_now(pid: int) -> None:
    """Ask the supervisor `pid` to kill every process of its command now (SIGUSR1)."""
    try:
        os.kill(pid, signal.SIGUSR1)
    except ProcessLookupError:
        return


def ended(
    returncode: int | None,
    stdout: BoundedCapture,
    stderr: BoundedCapture,
    stop: Stop | None,
    duration: float,
) -> ProcessOutcome:
    """The outcome of a run from its return code (negative: the killing signal), as subprocess."""
    killed_by = None if returncode is None or returncode >= 0 else -returncode
    return ProcessOutcome(
        exit_code=None if killed_by is not None else returncode,
        signal=killed_by,
        stdout=stdout.captured(),
        stderr=stderr.captured(),
        timed_out=stop == "timed out",
        cancelled=stop == "cancelled",
        duration=duration,
    )


def not_started() -> ProcessOutcome:
    """The outcome of a run whose signal was set before it started: nothing ran."""
    empty = BoundedCapture(0)
    return ended(None, empty, empty, "cancelled", 0.0)
