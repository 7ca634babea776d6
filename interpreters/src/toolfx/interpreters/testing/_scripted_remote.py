"""A remote runner for tests: bodies run here, as a worker would run them, with scripted faults.

`ScriptedRemote` plays the cluster without one: each request crosses a pickle boundary (what a
real runner ships must survive it), takes `latency` seconds of the runtime's clock each way
(virtual under the deterministic interpreter), and runs through the worker's half of the
pipeline (`remote_body`) on a signal of its own that follows the driver's, as a worker's does.
Its runtime is the driver's, so a body's sleeps and checkpoints are the interpreter's own; but
as on a worker, an ask a body makes is answered `unavailable` and its progress goes nowhere.
A `WorkerCrash` scripted for a call id loses the worker before or after the body ran.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, final

from toolfx.core.pipeline import remote_body
from toolfx.core.runtime import (
    CALLER_CANCELLED,
    ApprovalReply,
    ApprovalRequest,
    Cancelled,
    CancelSignal,
    DelegatingRuntime,
    ProgressEvent,
    RemoteLost,
    RemoteNotStarted,
    RemoteOutcome,
    RemoteRequest,
    RemoteRunner,
    RemoteSettled,
    Runtime,
)
from toolfx.core.tools import ToolDefinition
from toolfx.interpreters.remote import find_tool

__all__ = ["ScriptedRemote", "WorkerCrash"]

WORKER: str = "scripted worker 1"
"""How the scripted remote names its worker."""


@final
@dataclass(frozen=True, slots=True)
class WorkerCrash:
    """The worker dies `before` the body starts (it never runs) or `after` it ran (its result
    is lost), with `reason` as the runner's message."""

    when: Literal["before", "after"] = "after"
    reason: str = "the worker process crashed"


@final
class ScriptedRemote(RemoteRunner):
    """Runs remote bodies here through the worker's half, `latency` each way, with `crashes` by
    call id. The worker finds a tool by its placement's reference, else by name in `tools`
    (definitions, or a lookup such as `Location.get`). `arrived` is called with each request as
    it is handed over (a test may cancel the caller there); `requests` keeps every request
    handed over, in order."""

    __slots__ = ("_arrived", "_crashes", "_latency", "_tools", "requests")

    def __init__(
        self,
        tools: Iterable[ToolDefinition[Any, Any]]
        | Callable[[str], ToolDefinition[Any, Any] | None] = (),
        *,
        latency: float = 0.0,
        crashes: Mapping[str, WorkerCrash] | None = None,
        arrived: Callable[[RemoteRequest], object] | None = None,
    ) -> None:
        if not latency >= 0:
            raise ValueError(f"latency must be a number of seconds >= 0, not {latency!r}")
        self._tools: Callable[[str], ToolDefinition[Any, Any] | None] = (
            tools if callable(tools) else {d.name: d for d in tools}.get
        )
        self._latency = latency
        self._crashes = dict(crashes or {})
        self._arrived = arrived
        self.requests: list[RemoteRequest] = []

    async def run(
        self, request: RemoteRequest, signal: CancelSignal, runtime: Runtime
    ) -> RemoteOutcome:
        """Ship the request, run its body as a worker would, and ship back what it gave."""
        request = pickle.loads(pickle.dumps(request))
        self.requests.append(request)
        if self._arrived is not None:
            self._arrived(request)
        try:
            await runtime.sleep(self._latency, signal)
        except Cancelled as cancelled:
            return RemoteNotStarted(cancelled.reason)
        crash = self._crashes.get(request.call_id)
        if crash is not None and crash.when == "before":
            return RemoteLost(WORKER, crash.reason)
        found = self._tools(request.tool) if request.placement.reference is None else None
        definition = find_tool(request, None) if found is None else found
        if isinstance(definition, ToolDefinition):
            body_signal = CancelSignal()
            unsubscribe = signal.on_cancel(
                lambda: body_signal.cancel(signal.reason or CALLER_CANCELLED)
            )
            try:
                result: object = await remote_body(definition, request, body_signal).program(
                    _AsOnAWorker(runtime)
                )
            finally:
                unsubscribe()
        else:
            result = definition
        if crash is not None:
            return RemoteLost(WORKER, crash.reason)
        await runtime.sleep(self._latency)
        return RemoteSettled(pickle.loads(pickle.dumps(result)), WORKER)


class _AsOnAWorker(DelegatingRuntime):
    """The driver's runtime as a worker's body sees one: no one to ask, no one to tell."""

    async def approve(self, request: ApprovalRequest, signal: CancelSignal) -> ApprovalReply:
        """`unavailable`: nothing on a worker asks anyone."""
        return "unavailable"

    def progress(self, event: ProgressEvent) -> None:
        """Dropped: a worker's progress is not carried back."""
