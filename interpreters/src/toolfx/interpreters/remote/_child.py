"""One remote body in a child process of its own, so that ending it ends all it started.

The child leads a new session (its own process group), so the body's subprocesses are in its
group. A cancel is a message: the child sets its body's signal with the driver's reason, and a
body still running `kill_grace` seconds later has the whole group killed. A child whose driver
goes away (its end of the pipe closes, however the driver died) treats it as a cancel and ends
its own group after the same grace. A child that dies without a result is a lost worker, named
with its pid and how it ended.

Children come from a forkserver preloaded with this module: each starts with toolfx imported,
not a copy of a threaded parent.
"""

from __future__ import annotations

import contextlib
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

__all__ = ["preload", "run_in_child"]

_CONTEXT: Final = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload([__name__])


def preload(*modules: str) -> None:
    """Have the forkserver import `modules` too, if it has not started yet.

    Each child runs its parent's `__main__` script again (as multiprocessing does, so that what
    lives there unpickles); modules that script imports, preloaded, are imported once in the
    forkserver, not again in every child (a Ray worker's main imports Ray: 0.3 s a child).
    """
    _CONTEXT.set_forkserver_preload([__name__, *modules])


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

    __slots__ = (
        "_cancelled",
        "_connection",
        "_grace",
        "_killed",
        "_lock",
        "_process",
        "_reaped",
        "_timer",
    )

    def __init__(self, process: Any, connection: Connection, grace: float) -> None:
        self._process = process
        self._connection = connection
        self._grace = grace
        self._lock = threading.Lock()
        self._cancelled: str | None = None
        self._killed = False
        self._reaped = False  # once reaped, its pid may be another process's: never signalled
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
        """SIGKILL the child's process group (every process the body started), unless the
        child has been reaped."""
        with self._lock:
            if not self._reaped:
                self._killed = True
                self._end_group()

    def _end_group(self) -> None:
        """SIGKILL the group and its leader (called with the lock held, before the reaping:
        until then the leader's pid, a zombie's at worst, names this group and no other)."""
        pid = self._process.pid
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signals.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signals.SIGKILL)  # before it led its group

    def _reap(self) -> None:
        """End what is left of the group, then wait for the child."""
        with self._lock:
            if not self._reaped:
                self._end_group()
                self._reaped = True
        self._process.join()

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
        self._reap()
        with self._lock:
            cancelled, killed = self._cancelled, self._killed
        if cancelled is not None and killed:
            if not started:
                return RemoteNotStarted(cancelled)
            return RemoteSettled(aborted(request.tool, cancelled, body_started=True), worker)
        return RemoteLost(worker, _ending(self._process.exitcode))

    def close(self) -> None:
        """Stop the kill timer, end the child's group (what the body left running ends with its
        call, as the child itself may have), release the pipe."""
        with self._lock:
            timer = self._timer
        if timer is not None:
            timer.cancel()
        self._reap()
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
    """The child: lead a group, run the body, send back its result (ending the group if the
    driver has gone)."""
    os.setsid()
    body_signal = CancelSignal()
    sending = threading.Lock()
    threading.Thread(
        target=_listen,
        args=(connection, body_signal, request.placement.kill_grace),
        name="toolfx-remote-cancel",
        daemon=True,
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
            _send_result(connection, request, result)
        except OSError:  # the driver has gone: nothing of the call may outlive it
            os.killpg(0, signals.SIGKILL)


def _send_result(connection: Connection, request: RemoteRequest, result: object) -> None:
    try:
        connection.send(("result", result))
    except OSError:
        raise
    except Exception as error:  # a result that does not pickle
        message = f"the result of `{request.tool}` could not be sent back: {error!r}"
        connection.send(("result", failed(ErrorCode.UNEXPECTED_ERROR, printable(message))))


def _listen(connection: Connection, body_signal: CancelSignal, grace: float) -> None:
    """Set the body's signal when the driver cancels; when the driver goes away, set it and
    end the whole group after `grace` seconds."""
    while True:
        try:
            kind, reason = connection.recv()
        except (EOFError, OSError):
            body_signal.cancel("the driver went away")
            threading.Event().wait(grace)
            os.killpg(0, signals.SIGKILL)
            return
        if kind == "cancel":
            body_signal.cancel(reason)
