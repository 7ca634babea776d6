"""Remote tool bodies on a Ray cluster: `RayRemote` (needs the `ray` extra of toolfx-interpreters).

Each body is one Ray task, never retried (`max_retries=0`: a body is never run twice behind the
caller's back), reserving what the tool's `RemotePlacement` asks for (`cpus`, `memory_bytes`,
`resources`; a resource named "GPU" is Ray's `num_gpus`). In the Ray worker the task runs the body
as `ProcessRemote` does, in a child process leading its own group (`run_in_child`), so a body and
everything it started end with the task, and the worker dying takes them with it.

The task is a streaming generator of two items: first which worker runs it (the Ray node, its
address and the worker's pid), then what became of the body. The first tells a body that never
started (`RemoteNotStarted`) from one that did, and names the worker when Ray later reports it
dead; the second travels as Ray moves any task output, inline when small and through the object
store when large.

Cancelling: once the driver's signal is set, `ray.cancel` at once. Ray interrupts the task's
main thread as a SIGINT would (at its next Python instruction: the thread looks every 50 ms),
and the task's own SIGINT handler turns that into its body's signal, so the body stops by
itself or its group is killed after the placement's `kill_grace`. A task still running
`kill_grace` plus a margin later is force-cancelled (Ray kills its worker; the child, its pipe
closed, ends its group). Ray's cancel carries no reason, so the body's signal says only that Ray
cancelled it; the call's ABORTED or TOOL_TIMEOUT result gives the driver's reason. Once a
streaming task is cancelled Ray drops what it yields (the driver sees TaskCancelledError, or
the stream ends), so a body cancelled while it runs is ABORTED, whatever it did meanwhile (a
plain task that returns after the interrupt would still give its value: not this one).

`RayRemote` connects with `ray.init(address=...)` unless this process is connected already (a
host's own `ray.init` stands, whatever its address). Without an address (and no `RAY_ADDRESS`),
it joins the cluster `ray start` started on this machine, if any, else starts a Ray of one node
here (`start_here`) whose every server listens on the loopback interface only: by default Ray
listens on every interface, and whoever reaches a Ray port runs code. Ray's usage statistics are
turned off (`RAY_USAGE_STATS_ENABLED=0`) before Ray is imported; a cluster already started keeps
its own setting.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal as signals
import threading
from typing import TYPE_CHECKING, Any, Final, final

from toolfx.core.json import truncate
from toolfx.core.runtime import (
    CALLER_CANCELLED,
    CancelSignal,
    RemoteLost,
    RemoteNotStarted,
    RemoteRunner,
    RemoteSettled,
)
from toolfx.core.tools import ErrorCode, aborted, failed, printable
from toolfx.interpreters.remote._child import preload, run_in_child

if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import FrameType

    from ray import ObjectRefGenerator

    from toolfx.core.runtime import RemoteOutcome, RemotePlacement, RemoteRequest, Runtime
    from toolfx.interpreters.remote._worker import ProvidedTools

__all__ = ["RayRemote", "start_here"]

_CLUSTER_MODE: Final = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray's switch between a node other machines may join (its default on Linux) and a node of
this machine alone (every server bound to the loopback interface), read by each Ray process."""

_FORCE_MARGIN: Final = 2.0
"""Seconds past a placement's kill grace before a cancelled task that still runs is
force-cancelled: the task needs a moment to kill its body's group and end by itself."""

_LOOK: Final = 0.05
"""Seconds between two looks of a task's main thread for Ray's interrupt (which Ray delivers
only when that thread runs Python code)."""

_REASON_LIMIT: Final = 400
"""How many characters of Ray's message a lost worker's reason keeps."""

_RAY_CANCELLED: Final = "Ray cancelled the task running this body"
"""The reason a body's signal gives when Ray cancels its task (Ray's cancel carries none)."""

_ANY_WORKER: Final = "a Ray worker"
"""The worker named when Ray reports one lost before it said which it was."""


@final
class RayRemote(RemoteRunner):
    """Runs each remote body as a Ray task on the cluster this process is connected to."""

    __slots__ = ("_source",)

    def __init__(self, source: ProvidedTools | None = None, *, address: str | None = None) -> None:
        _require_ray()
        import ray  # noqa: PLC0415 (optional: the `ray` extra)

        if not ray.is_initialized():
            _connect(address)
        self._source = source

    async def run(
        self, request: RemoteRequest, signal: CancelSignal, runtime: Runtime
    ) -> RemoteOutcome:
        """Run the body as a Ray task (waited for through `runtime.run_blocking`)."""
        return await runtime.run_blocking(functools.partial(self._run, request, signal))

    def _run(self, request: RemoteRequest, signal: CancelSignal) -> RemoteOutcome:
        if signal.is_cancelled():
            return RemoteNotStarted(signal.reason or CALLER_CANCELLED)
        options = _options(request.placement)
        stream: ObjectRefGenerator[Any] = _task().options(**options).remote(request, self._source)
        cancel = _Cancel(stream, request.placement.kill_grace + _FORCE_MARGIN)
        unsubscribe = signal.on_cancel(cancel.start)
        try:
            return _outcome(stream, request, signal, cancel)
        finally:
            unsubscribe()
            cancel.end()


def start_here(**options: Any) -> None:
    """Start a Ray of one node on this machine and connect to it, every server it starts
    listening on the loopback interface only (`options`: `ray.init`'s)."""
    _require_ray()
    import ray  # noqa: PLC0415 (optional: the `ray` extra)
    from ray._private import ray_constants  # noqa: PLC0415 (the mode Ray read on import)

    saved_mode, saved_env = ray_constants.ENABLE_RAY_CLUSTER, os.environ.get(_CLUSTER_MODE)
    os.environ[_CLUSTER_MODE] = "0"  # for the processes Ray starts now, and theirs
    ray_constants.ENABLE_RAY_CLUSTER = False  # for this one, which read it when it imported Ray
    try:
        ray.init(_node_ip_address="127.0.0.1", **options)
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = saved_mode
        if saved_env is None:
            os.environ.pop(_CLUSTER_MODE, None)
        else:
            os.environ[_CLUSTER_MODE] = saved_env


def _connect(address: str | None) -> None:
    """Connect to the cluster at `address` (else `RAY_ADDRESS`); without one, to the cluster
    `ray start` started on this machine, else to one started here, on the loopback only (as
    for `local`, Ray's word for a new one here)."""
    import ray  # noqa: PLC0415 (optional: the `ray` extra)

    chosen = address if address is not None else os.environ.get("RAY_ADDRESS") or None
    if chosen == "local":  # Ray's own would listen on every interface
        start_here(address="local")
        return
    if chosen is not None:
        ray.init(address=chosen)
        return
    try:
        ray.init(address="auto")
    except ConnectionError:  # none running: Ray would start one on every interface
        start_here()


def _require_ray() -> None:
    """Import Ray with its usage statistics off; without it, an error naming the extra."""
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    try:
        import ray  # noqa: F401, PLC0415 (optional: the `ray` extra)
    except ImportError as missing:
        raise ImportError(
            "toolfx.interpreters.remote.ray needs Ray: install toolfx-interpreters[ray]",
            name=missing.name,
        ) from missing


@functools.cache
def _task() -> Any:  # Ray types a generator task's call as an ObjectRef, not the generator
    """The Ray remote function running one body (defined once per process)."""
    import ray  # noqa: PLC0415 (optional: the `ray` extra)

    return ray.remote(num_returns="streaming", max_retries=0)(_in_worker)


def _options(placement: RemotePlacement) -> dict[str, Any]:
    """The Ray task options reserving what `placement` asks for one body."""
    options: dict[str, Any] = {"num_cpus": placement.cpus}
    if placement.memory_bytes is not None:
        options["memory"] = placement.memory_bytes
    resources = dict(placement.resources)
    if "GPU" in resources:
        options["num_gpus"] = resources.pop("GPU")
    if resources:
        options["resources"] = resources
    return options


@final
class _Cancel:
    """The driver's cancel of one task, on a thread of its own (the canceller never waits on
    Ray): interrupt the task at once, force-cancel it if it still runs after the grace."""

    __slots__ = ("_ended", "_forced", "_grace", "_lock", "_started", "_stream")

    def __init__(self, stream: ObjectRefGenerator[Any], grace: float) -> None:
        self._stream = stream
        self._grace = grace
        self._lock = threading.Lock()
        self._started = False
        self._forced = False
        self._ended = threading.Event()

    @property
    def forced(self) -> bool:
        """Whether this cancel force-cancelled the task (Ray killed its worker)."""
        with self._lock:
            return self._forced

    def start(self) -> None:
        """Start cancelling the task (a signal's watcher: it returns at once, never raises)."""
        with self._lock:
            if self._started or self._ended.is_set():
                return
            self._started = True
        threading.Thread(target=self._cancel, name="toolfx-ray-cancel", daemon=True).start()

    def _cancel(self) -> None:
        import ray  # noqa: PLC0415 (optional: the `ray` extra, imported by now)

        with contextlib.suppress(Exception):  # the forced cancel stays as the backstop
            ray.cancel(self._stream)
        if self._ended.wait(self._grace):
            return
        with self._lock:
            self._forced = True
        with contextlib.suppress(Exception):  # it ended meanwhile: nothing to kill
            ray.cancel(self._stream, force=True)

    def end(self) -> None:
        """The task has ended, one way or another: nothing more to cancel."""
        self._ended.set()


def _outcome(
    stream: ObjectRefGenerator[Any], request: RemoteRequest, signal: CancelSignal, cancel: _Cancel
) -> RemoteOutcome:
    """What the task's two items say, or what Ray's error in their place means."""
    import ray  # noqa: PLC0415 (optional: the `ray` extra)
    from ray import exceptions  # noqa: PLC0415

    where: str | None = None
    try:
        where = str(ray.get(next(stream)))
        outcome: object = ray.get(next(stream))
    except exceptions.TaskCancelledError as error:
        return _cancelled(request, signal, where, error)
    except (
        exceptions.WorkerCrashedError,
        exceptions.NodeDiedError,
        exceptions.LocalRayletDiedError,
        exceptions.ObjectLostError,
        exceptions.OutOfMemoryError,
        exceptions.OutOfDiskError,
        exceptions.RaySystemError,
        exceptions.RpcError,
    ) as error:
        if cancel.forced and signal.is_cancelled():
            return _cancelled(request, signal, where, error)
        return RemoteLost(where or _ANY_WORKER, _reason(error))
    except exceptions.RayTaskError as error:  # the task raised (not the body: it is a result)
        return RemoteSettled(
            failed(
                ErrorCode.UNEXPECTED_ERROR,
                printable(
                    f"the Ray task running `{request.tool}` raised "
                    f"{truncate(repr(error.cause), _REASON_LIMIT)}"
                ),
            ),
            where or _ANY_WORKER,
        )
    except exceptions.RayError as error:  # anything else Ray raised in the result's place
        return RemoteSettled(
            failed(
                ErrorCode.UNEXPECTED_ERROR,
                printable(f"the Ray task running `{request.tool}` failed: {_reason(error)}"),
            ),
            where or _ANY_WORKER,
        )
    except StopIteration:  # a cancelled task's stream may end, not raise
        if signal.is_cancelled():
            return _cancelled(request, signal, where, None)
        return RemoteLost(where or _ANY_WORKER, "its Ray task ended without a result")
    if isinstance(outcome, RemoteNotStarted) and signal.is_cancelled():
        return RemoteNotStarted(signal.reason or outcome.reason)
    if not isinstance(outcome, RemoteSettled | RemoteNotStarted | RemoteLost):
        return RemoteLost(where, f"its Ray task gave a {type(outcome).__name__}, not an outcome")
    return outcome


def _cancelled(
    request: RemoteRequest, signal: CancelSignal, where: str | None, error: Exception | None
) -> RemoteOutcome:
    """A task Ray cancelled: this caller's cancel (ABORTED once the body started), or another's
    (a lost worker: the body gave nothing back)."""
    if not signal.is_cancelled():
        return RemoteLost(where or _ANY_WORKER, _reason(error) if error else "Ray cancelled it")
    reason = signal.reason or CALLER_CANCELLED
    if where is None:
        return RemoteNotStarted(reason)
    return RemoteSettled(aborted(request.tool, reason, body_started=True), where)


def _reason(error: Exception) -> str:
    return truncate(printable(f"{type(error).__name__}: {error}"), _REASON_LIMIT)


def _in_worker(request: RemoteRequest, source: ProvidedTools | None) -> Iterator[object]:
    """The Ray task: say which worker this is, then run the body and give what became of it."""
    preload("ray")  # the worker's main imports Ray: once in its forkserver, not in each child
    where = _this_worker()
    yield where
    yield _settled_here(request, source, where)


def _this_worker() -> str:
    import ray  # noqa: PLC0415 (optional: the `ray` extra)

    node = ray.get_runtime_context().get_node_id()
    address = ray.util.get_node_ip_address()  # type: ignore[no-untyped-call]  # (untyped)
    return f"Ray node {node} ({address}), worker pid {os.getpid()}"


def _settled_here(request: RemoteRequest, source: ProvidedTools | None, where: str) -> object:
    """The body's outcome in a child of this worker; Ray's interrupt sets the body's signal.

    The child is waited for on a thread while this (main) thread looks for the interrupt, which
    a SIGINT handler of this task's own turns into the body's signal: no KeyboardInterrupt is
    raised into the middle of the wait.
    """
    body_signal = CancelSignal()
    done = threading.Event()
    box: list[object] = []

    def body() -> None:
        try:
            box.append(run_in_child(request, source, body_signal, where))
        except BaseException as error:  # raised again by the task, for the driver to report
            box.append(error)
        finally:
            done.set()

    def interrupted(signum: int, frame: FrameType | None) -> None:
        body_signal.cancel(_RAY_CANCELLED)

    on_main = threading.current_thread() is threading.main_thread()  # (where Ray runs tasks)
    previous = signals.signal(signals.SIGINT, interrupted) if on_main else None
    try:
        threading.Thread(target=body, name="toolfx-ray-body", daemon=True).start()
        while not done.wait(_LOOK):
            pass
    finally:
        if on_main:
            signals.signal(signals.SIGINT, previous)
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]
