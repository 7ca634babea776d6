"""The sync interpreter's process runner: subprocess on the calling thread, reader threads.

`run` completes without suspending (given a sink that does not): it blocks the calling thread while
two daemon threads drain the pipes into an inbox and a third reaps the process. The calling thread
takes what the inbox holds, in the order it was read, into bounded captures and the run's sink (so
the sink is called on the caller's thread, one read at a time). The inbox holds at most
`_INBOX_BYTES`: past that the readers wait, and so does the command. The signal may be set from any
thread; it wakes the wait at once. The kill policy is the one in
`toolfx.interpreters._process_common`.
"""

from __future__ import annotations

import math
import os
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from signal import SIGKILL, SIGTERM
from typing import IO, Final, final

from toolfx.core.runtime import (
    CancelSignal,
    OutputSink,
    OutputStream,
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

_INBOX_BYTES: Final = 4 * READ_CHUNK
"""Bytes read but not yet taken by the calling thread past which the reader threads wait."""


@final
class SyncProcessRunner(ProcessRunner):
    """Runs each command to its end on the calling thread (subprocess and reader threads)."""

    __slots__ = ()

    async def run(
        self, spec: ProcessSpec, signal: CancelSignal, output: OutputSink | None = None
    ) -> ProcessOutcome:
        """Block until the command ends or is stopped (TERM, then KILL, to its group)."""
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
                    stderr=subprocess.STDOUT if spec.stderr_to_stdout else subprocess.PIPE,
                    cwd=spec.cwd,
                    env=how.env,
                    start_new_session=True,
                    pass_fds=how.handed,
                    bufsize=0,  # unbuffered pipes: each read returns what is there
                )
            except OSError as error:
                raise spawn_error(spec, error) from error
            finally:
                how.close_handed()
            taker = _Taker(_Inbox(), spec.output_limit, output)
            return await _watch(spec, signal, child, how.status, taker, started_at=started_at)
        finally:
            how.finish()

    def sandboxes(self) -> frozenset[SandboxMechanism]:
        """Landlock and bubblewrap, where this machine has them (probed once)."""
        return available_sandboxes()


@final
class _Inbox:
    """What the reader threads read and the reaper saw, until the calling thread takes it."""

    __slots__ = ("_chunks", "_held", "_shut", "_wake", "cancelled", "drained", "exited")

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._chunks: deque[tuple[OutputStream, bytes]] = deque()
        self._held = 0
        self._shut = False
        self.exited = False
        self.drained = False
        self.cancelled = False

    def put(self, stream: OutputStream, chunk: bytes) -> bool:
        """Hold `chunk` once there is room; False when the run is over (stop reading)."""
        with self._wake:
            while self._held >= _INBOX_BYTES and not self._shut:
                self._wake.wait()
            if self._shut:
                return False
            self._chunks.append((stream, chunk))
            self._held += len(chunk)
            self._wake.notify_all()
            return True

    def note(self, mark: Callable[[_Inbox], None]) -> None:
        """Set a flag (the process exited, the pipes drained, the signal was set) and wake."""
        with self._wake:
            mark(self)
            self._wake.notify_all()

    def take(
        self, done: Callable[[_Inbox], bool], until: float | None
    ) -> tuple[list[tuple[OutputStream, bytes]], bool]:
        """What is held (waiting for something until `until`), and whether `done` holds after."""
        with self._wake:
            while not self._chunks and not done(self):
                left = None if until is None else until - time.monotonic()
                if left is not None and left <= 0:
                    break
                self._wake.wait(left)
            chunks = list(self._chunks)
            self._chunks.clear()
            self._held = 0
            self._wake.notify_all()
            return chunks, done(self)

    def wait_exited(self, seconds: float) -> None:
        """Wait up to `seconds` for the process to be reaped."""
        with self._wake:
            self._wake.wait_for(lambda: self.exited, seconds)

    def shut(self) -> None:
        """The run is over: readers stop holding what they read."""
        with self._wake:
            self._shut = True
            self._wake.notify_all()


@final
class _Taker:
    """The calling thread's side: each read into its capture, then into the sink."""

    __slots__ = ("_captures", "_output", "inbox", "stderr", "stdout")

    def __init__(self, inbox: _Inbox, limit: int, output: OutputSink | None) -> None:
        self.inbox = inbox
        self.stdout, self.stderr = BoundedCapture(limit), BoundedCapture(limit)
        self._captures = {"stdout": self.stdout, "stderr": self.stderr}
        self._output = output

    async def until(self, done: Callable[[_Inbox], bool], seconds: float | None) -> bool:
        """Take reads until `done` holds (True) or `seconds` pass (False; None: no end)."""
        end = None if seconds is None else time.monotonic() + seconds
        while True:
            chunks, finished = self.inbox.take(done, end)
            for stream, chunk in chunks:
                self._captures[stream].feed(chunk)
                if self._output is not None:
                    await self._output(stream, chunk)
            if finished:
                return True
            if not chunks or (end is not None and time.monotonic() >= end):
                return False  # the time is up, however fast the output comes


async def _watch(
    spec: ProcessSpec,
    signal: CancelSignal,
    child: subprocess.Popen[bytes],
    status: int | None,
    taker: _Taker,
    *,
    started_at: float,
) -> ProcessOutcome:
    """Follow a started child to its end, or stop it; nothing of it is left running after."""
    inbox = taker.inbox
    try:
        assert child.stdout is not None
        pipes = ((child.stdout, "stdout"), (child.stderr, "stderr"))
        pumps = tuple(_thread(_pump, pipe, name, inbox) for pipe, name in pipes if pipe)
        _thread(_follow, child, pumps, inbox)
        if status is not None:
            started(spec, _read_all(status))
        unsubscribe = signal.on_cancel(lambda: inbox.note(_cancelled))
        try:
            await taker.until(_stopped, _wait_time(spec.timeout))
        finally:
            unsubscribe()
        stop: Stop | None = None
        if not inbox.drained:
            stop = "cancelled" if signal.is_cancelled() else "timed out"
            await _end_group(child.pid, spec.kill_grace, taker)
    except BaseException:  # an interrupt, a sink that raised, no start: leave nothing running
        inbox.shut()
        sweep_now(child.pid)
        inbox.wait_exited(SWEEP_WAIT)
        signal_group(child.pid, SIGKILL)
        raise
    finally:
        inbox.shut()
    return ended(child.returncode, taker.stdout, taker.stderr, stop, time.monotonic() - started_at)


async def _end_group(pgid: int, grace: float, taker: _Taker) -> None:
    """TERM the group; after `grace` have the supervisor kill all; KILL the group; drain briefly."""
    signal_group(pgid, SIGTERM)
    if not await taker.until(_drained, _wait_time(grace)):
        sweep_now(pgid)
        await taker.until(_drained, SWEEP_WAIT)
    signal_group(pgid, SIGKILL)
    await taker.until(_exited, None)
    await taker.until(_drained, DRAIN_AFTER_KILL)


def _stopped(inbox: _Inbox) -> bool:
    return inbox.drained or inbox.cancelled


def _drained(inbox: _Inbox) -> bool:
    return inbox.drained


def _exited(inbox: _Inbox) -> bool:
    return inbox.exited


def _cancelled(inbox: _Inbox) -> None:
    inbox.cancelled = True


def _read_all(fd: int) -> bytes:
    """Everything written on the pipe `fd` until its last writer closes it."""
    chunks: list[bytes] = []
    while chunk := os.read(fd, READ_CHUNK):
        chunks.append(chunk)
    return b"".join(chunks)


def _wait_time(seconds: float) -> float | None:
    """A wait as `Condition.wait` takes it: None, not infinity, for no end."""
    limit = wait_limit(seconds)
    return None if math.isinf(limit) else limit


def _thread(target: Callable[..., None], *args: object) -> threading.Thread:
    thread = threading.Thread(target=target, args=args, daemon=True)
    thread.start()
    return thread


def _pump(stream: IO[bytes], name: OutputStream, inbox: _Inbox) -> None:
    """Read `stream` into the inbox until it ends or the run is over, then close it."""
    with stream:
        while (chunk := stream.read(READ_CHUNK)) and inbox.put(name, chunk):
            pass


def _follow(
    child: subprocess.Popen[bytes], pumps: tuple[threading.Thread, ...], inbox: _Inbox
) -> None:
    """Reap the child, wait for its pipes to end, then say so."""
    child.wait()
    inbox.note(_marked_exited)
    for pump in pumps:
        pump.join()
    inbox.note(_marked_drained)


def _marked_exited(inbox: _Inbox) -> None:
    inbox.exited = True


def _marked_drained(inbox: _Inbox) -> None:
    inbox.drained = True
