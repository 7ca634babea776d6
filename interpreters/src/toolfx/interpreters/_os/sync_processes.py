"""The sync interpreter's process runner: subprocess on the calling thread, reader threads.

`run` completes without suspending: it blocks the calling thread while two daemon threads drain the
pipes into bounded captures and a third reaps the process. The signal may be set from any thread; it
wakes the wait at once. The kill policy is the one in `toolfx.interpreters._process_common`.
"""

from __future__ import annotations

import math
import os
import subprocess
import threading
import time
from collections.abc import Callable
from signal import SIGKILL, SIGTERM
from typing import IO, final

from toolfx.core.runtime import (
    CancelSignal,
    ProcessOutcome,
    ProcessRunner,
    ProcessSpec,
    SandboxMechanism,
)
from toolfx.interpreters._os.launch import available_sandboxes, launch, started
from toolfx.interpreters._process_common import (
    DRAIN_AFTER_KILL,
    READ_CHUNK,
    SWEEP_WAIT,
    BoundedCapture,
    Stop,
    checked_argv,
    ended,
    not_started,
    signal_group,
    spawn_error,
    sweep_now,
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
        """Landlock and bubblewrap, where this machine has them (probed once)."""
        return available_sandboxes()


def _run(spec: ProcessSpec, signal: CancelSignal) -> ProcessOutcome:
    if signal.is_cancelled():
        return not_started()
    started_at = time.monotonic()
    how = launch(spec, checked_argv(spec))
    try:
        try:
            child = subprocess.Popen(
                how.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=spec.cwd,
                env=how.env,
                start_new_session=True,
                pass_fds=how.handed,
                bufsize=0,  # unbuffered pipes: each read returns what is there, up to READ_CHUNK
            )
        except OSError as error:
            raise spawn_error(spec, error) from error
        finally:
            how.close_handed()
        return _watch(spec, signal, child, how.status, started_at)
    finally:
        how.finish()


def _watch(
    spec: ProcessSpec,
    signal: CancelSignal,
    child: subprocess.Popen[bytes],
    status: int | None,
    started_at: float,
) -> ProcessOutcome:
    """Follow a started child to its end, or stop it; nothing of it is left running after."""
    stdout, stderr = BoundedCapture(spec.output_limit), BoundedCapture(spec.output_limit)
    exited, drained, wake = threading.Event(), threading.Event(), threading.Event()
    try:
        assert child.stdout is not None
        assert child.stderr is not None
        pumps = (_thread(_pump, child.stdout, stdout), _thread(_pump, child.stderr, stderr))
        _thread(_follow, child, pumps, exited, drained, wake)
        if status is not None:
            started(spec, _read_all(status))
        unsubscribe = signal.on_cancel(wake.set)
        try:
            wake.wait(_wait_time(spec.timeout))
        finally:
            unsubscribe()
        stop: Stop | None = None
        if not drained.is_set():
            stop = "cancelled" if signal.is_cancelled() else "timed out"
            _end_group(child.pid, spec.kill_grace, exited, drained)
    except BaseException:  # an interrupt on this thread, or no start: leave nothing running
        sweep_now(child.pid)
        exited.wait(SWEEP_WAIT)
        signal_group(child.pid, SIGKILL)
        raise
    return ended(child.returncode, stdout, stderr, stop, time.monotonic() - started_at)


def _end_group(pgid: int, grace: float, exited: threading.Event, drained: threading.Event) -> None:
    """TERM the group; after `grace` have the supervisor kill all; KILL the group; drain briefly."""
    signal_group(pgid, SIGTERM)
    if not drained.wait(_wait_time(grace)):
        sweep_now(pgid)
        drained.wait(SWEEP_WAIT)
    signal_group(pgid, SIGKILL)
    exited.wait()
    drained.wait(DRAIN_AFTER_KILL)


def _read_all(fd: int) -> bytes:
    """Everything written on the pipe `fd` until its last writer closes it."""
    chunks: list[bytes] = []
    while chunk := os.read(fd, READ_CHUNK):
        chunks.append(chunk)
    return b"".join(chunks)


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
