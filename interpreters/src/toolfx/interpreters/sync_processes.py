"""The sync interpreter's process runner: subprocess on the calling thread, reader threads.

`run` completes without suspending: it blocks the calling thread while two daemon threads drain
the pipes into bounded captures and a third reaps the process. The signal may be set from any
thread; it wakes the wait at once. The kill policy is the one in `process_common`.
"""

from __future__ import annotations

import math
import subprocess
import threading
import time
from collections.abc import Callable
from signal import SIGKILL, SIGTERM
from typing import IO, final

from toolfx.core.cancel import CancelSignal
from toolfx.core.processes import ProcessOutcome, ProcessRunner, ProcessSpec, SandboxMechanism
from toolfx.interpreters.process_common import (
    DRAIN_AFTER_KILL,
    READ_CHUNK,
    BoundedCapture,
    Stop,
    checked_argv,
    ended,
    not_started,
    signal_group,
    spawn_error,
    wait_limit,
)

__all__ = ["SyncProcessRunner"]


@final
class SyncProcessRunner(ProcessRunner):
    """Runs each command to its end on the calling thread (subprocess and reader threads)."""

    __slots__ = ()

    async def run(self, spec: ProcessSpec, signal: CancelSignal) -> ProcessOutcome:
        """Block until the command ends or is stopped (TERM, then KILL, to its group)."""
        return _run(spec, signal)

    def sandboxes(self) -> frozenset[SandboxMechanism]:
        """None yet: a confined spec is refused."""
        return frozenset()


def _run(spec: ProcessSpec, signal: CancelSignal) -> ProcessOutcome:
    if signal.is_cancelled():
        return not_started()
    started = time.monotonic()
    try:
        child = subprocess.Popen(
            checked_argv(spec),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=spec.cwd,
            env=spec.env,
            start_new_session=True,
            bufsize=0,  # unbuffered pipes: each read returns what is there, up to READ_CHUNK
        )
    except OSError as error:
        raise spawn_error(spec, error) from error
    try:
        stdout, stderr = BoundedCapture(spec.output_limit), BoundedCapture(spec.output_limit)
        exited, drained, wake = threading.Event(), threading.Event(), threading.Event()
        assert child.stdout is not None
        assert child.stderr is not None
        pumps = (_thread(_pump, child.stdout, stdout), _thread(_pump, child.stderr, stderr))
        _thread(_follow, child, pumps, exited, drained, wake)
        unsubscribe = signal.on_cancel(wake.set)
        try:
            wake.wait(_wait_time(spec.timeout))
        finally:
            unsubscribe()
        stop: Stop | None = None
        if not drained.is_set():
            stop = "cancelled" if signal.is_cancelled() else "timed out"
            _end_group(child.pid, spec.kill_grace, exited, drained)
    except BaseException:  # an interrupt on this thread: leave nothing running
        signal_group(child.pid, SIGKILL)
        raise
    return ended(child.returncode, stdout, stderr, stop, time.monotonic() - started)


def _end_group(pgid: int, grace: float, exited: threading.Event, drained: threading.Event) -> None:
    """TERM the group; KILL it after `grace` unless its output ended; then drain briefly."""
    signal_group(pgid, SIGTERM)
    if drained.wait(_wait_time(grace)):
        return
    signal_group(pgid, SIGKILL)
    exited.wait()
    drained.wait(DRAIN_AFTER_KILL)


def _wait_time(seconds: float) -> float | None:
    """A timeout for `Event.wait`, which takes None, not infinity, for no end."""
    limit = wait_limit(seconds)
    return None if math.isinf(limit) else limit


def _thread(target: Callable[..., None], *args: object) -> threading.Thread:
    thread = threading.Thread(target=target, args=args, daemon=True)
    thread.start()
    return thread


def _pump(stream: IO[bytes], capture: BoundedCapture) -> None:
    """Read `stream` to its end into `capture`, then close it."""
    with stream:
        while chunk := stream.read(READ_CHUNK):
            capture.feed(chunk)


def _follow(
    child: subprocess.Popen[bytes],
    pumps: tuple[threading.Thread, ...],
    exited: threading.Event,
    drained: threading.Event,
    wake: threading.Event,
) -> None:
    """Reap the child, wait for its pipes to end, then wake the runner."""
    child.wait()
    exited.set()
    for pump in pumps:
        pump.join()
    drained.set()
    wake.set()
