"""One remote body in a child process of its own, so that ending it ends all it started.

The child leads a new session (its own process group), so the body's subprocesses are in its
group. A cancel is a message: the child sets its body's signal with the driver's reason, and a
body still running `kill_grace` seconds later has the whole group killed. A child whose parent
goes away ends its group too (Linux's parent-death signal, on the forkserver that forked it,
which exits with the process that started it). A child that dies without a result is a lost
worker, named with its pid and how it ended.

Children come from a forkserver preloaded with this module: each starts with toolfx imported,
not a copy of a threaded parent.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import multiprocessing.connection
import os
import signal as signals
import threading
from typing import TYPE_CHECKING, Any, Final

from toolfx.core.runtime import (
    CALLER_CANCELLED,
    CancelSignal,
    RemoteLost,
    RemoteNotStarted,
    RemoteOutcome,
    RemoteSettled,
)
from toolfx.core.tools import ErrorCode, aborted, failed, printable
from toolfx.interpreters.remote._worker import run_request

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from toolfx.core.runtime import RemoteRequest
    from toolfx.interpreters.remote._worker import ProvidedTools

__all__ = ["run_in_child"]

_PR_SET_PDEATHSIG: Final = 1

_CONTEXT: Final = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload([__name__])


def run_in_child(
    request: RemoteRequest, source: ProvidedTools | None, signal: CancelSignal, where: str
) -> RemoteOutcome:
    """Run `request`'s body in a new child process and wait for it (blocks this thread).

    `signal` set before the child starts gives `RemoteNotStarted`; set while it runs, the
    child's body sees it, and the child's group is killed after the placement's kill grace.
    `where` names this machine or worker in a lost worker's message.
    """
    if signal.is_cancelled():
        return RemoteNotStarted(signal.reason or CALLER_CANCELLED)
    ours, theirs = _CONTEXT.Pipe()
    process = _CONTEXT.Process(
        target=_child_main, args=(theirs, request, source), name="toolfx-remote", daemon=True
    )
    process.start()
    theirs.close()
    child = _Child(process, ours, request.placement.kill_grace)
    unsubscribe = signal.on_cancel(lambda: child.cancel(signal.reason or CALLER_CANCELLED))
    try:
        return child.outcome(request, f"{where} (pid {process.pid})")
    finally:
        unsubscribe()
        child.close()


class _Child:
    """The driver's hold on one child: its messages, its cancel and its kill."""

    __slots__ = ("_cancelled", "_connection", "_grace", "_killed", "_lock", "_process", "_timer")

    def __init__(self, process: Any, connection: Connection, grace: float) -> None:
        self._process = process
        self._connection = connection
        self._grace = grace
        self._lock = threading.Lock()
        self._cancelled: str | None = None
        self._killed = False
        self._timer: threading.Timer | None = None

    def cancel(self, reason: str) -> None:
        """Tell the child's body to stop, and kill its group if it has not after the grace."""
        with self._lock:
            if self._cancelled is not None:
                return
            self._cancelled = reason
            with contextlib.suppress(OSError, ValueError):  # the child has gone already
                self._connection.send(("cancel", reason))
            self._timer = threading.Timer(self._grace, self.kill)
            self._timer.daemon = True
            self._timer.start()

    def kill(self) -> None:
        """SIGKILL the child's process group (every process the body started)."""
        with self._lock:
            self._killed = True
        pid = self._process.pid
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signals.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signals.SIGKILL)  # before it led its group

    def outcome(self, request: RemoteRequest, worker: str) -> RemoteOutcome:
        """What the child gives back, or what its death means."""
        started = False
        connection = self._connection
        while True:
            multiprocessing.connection.wait([connection, self._process.sentinel])
            if not connection.poll():  # exited with nothing more to say
                break
            try:
                kind, payload = connection.recv()
            except (EOFError, OSError):
                break
            if kind == "started":
                started = True
            elif kind == "result":
                return RemoteSettled(payload, worker)
        self._process.join()
        with self._lock:
            cancelled, killed = self._cancelled, self._killed
        if cancelled is not None and killed:
            if not started:
                return RemoteNotStarted(cancelled)
            return RemoteSettled(aborted(request.tool, cancelled, body_started=True), worker)
        return RemoteLost(worker, _ending(self._process.exitcode))

    def close(self) -> None:
        """Stop the kill timer, end the child if it still runs, release the pipe."""
        with self._lock:
            timer = self._timer
        if timer is not None:
            timer.cancel()
        if self._process.is_alive():
            self.kill()
        self._process.join()
        self._connection.close()


def _ending(exitcode: int | None) -> str:
    if exitcode is None:
        return "it did not end"
    if exitcode < 0:
        return f"it was killed by {signals.Signals(-exitcode).name}"
    return f"it exited with status {exitcode} before giving a result"


def _child_main(
    connection: Connection, request: RemoteRequest, source: ProvidedTools | None
) -> None:
    """The child: lead a group, die with the parent, run the body, send back its result."""
    os.setsid()
    signals.signal(signals.SIGTERM, _end_group)
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signals.SIGTERM, 0, 0, 0)
    if os.getppid() == 1:  # the forkserver went before the death signal was set
        _end_group(signals.SIGTERM, None)
    body_signal = CancelSignal()
    sending = threading.Lock()
    threading.Thread(
        target=_listen, args=(connection, body_signal), name="toolfx-remote-cancel", daemon=True
    ).start()
    with sending:
        connection.send(("started", None))
    try:
        result: object = run_request(request, source, body_signal)
    except BaseException as error:
        result = failed(
            ErrorCode.UNEXPECTED_ERROR,
            printable(f"the remote worker running `{request.tool}` raised {error!r}"),
        )
    with sending:
        try:
            connection.send(("result", result))
        except Exception as error:
            connection.send(
                (
                    "result",
                    failed(
                        ErrorCode.UNEXPECTED_ERROR,
                        printable(f"the result of `{request.tool}` could not be sent: {error!r}"),
                    ),
                )
            )


def _listen(connection: Connection, body_signal: CancelSignal) -> None:
    """Set the body's signal when the driver cancels, or when the driver's end goes away."""
    while True:
        try:
            kind, reason = connection.recv()
        except (EOFError, OSError):
            body_signal.cancel("the driver went away")
            return
        if kind == "cancel":
            body_signal.cancel(reason)


def _end_group(signum: int, frame: object) -> None:
    os.killpg(0, signals.SIGKILL)
