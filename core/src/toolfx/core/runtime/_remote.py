"""The remote capability: run one accepted call's body on another machine, policy kept here.

Only the body moves. Validation, rules and approvals, guards, execute wrappers, the timeout,
post-execute, finalize, observers and records all stay with the caller (the driver); a runner
receives a `RemoteRequest` for a call the pipeline has already allowed and gives back what the
body did (`RemoteOutcome`). The driver's signal is the runner's to follow: set, it cancels the
remote body (interrupting it, then ending its worker after the placement's grace).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol, final

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.runtime._cancel import CancelSignal
    from toolfx.core.runtime._runtime import Runtime

__all__ = [
    "RemoteLost",
    "RemoteNotStarted",
    "RemoteOutcome",
    "RemotePlacement",
    "RemoteRequest",
    "RemoteRunner",
    "RemoteSettled",
]

_REFERENCE: Final = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
"""`package.module:attribute` (the attribute may be dotted)."""


@final
@dataclass(frozen=True, slots=True)
class RemotePlacement:
    """A tool's opt-in to running its body remotely, and what one body needs there.

    `cpus` and `memory_bytes` are what the cluster reserves for one body (memory: None reserves
    none); `resources` are custom cluster resources by name. `reference` is where a worker
    imports the tool from (`package.module:attribute`, a `ToolDefinition`); None: the runner's
    own tool source (the `toolfx.tools` providers over the shared workspace). `kill_grace` is
    how long a cancelled body may take to stop on its own before its worker is ended.
    """

    cpus: float = 1.0
    memory_bytes: int | None = None
    resources: tuple[tuple[str, float], ...] = ()
    reference: str | None = None
    kill_grace: float = 5.0

    def __post_init__(self) -> None:
        if not _non_negative(self.cpus):
            raise ValueError(
                f"RemotePlacement.cpus must be a finite number >= 0, not {self.cpus!r}"
            )
        memory = self.memory_bytes
        if memory is not None and (type(memory) is not int or memory < 1):
            raise ValueError(
                f"RemotePlacement.memory_bytes must be a positive int or None, not {memory!r}"
            )
        for entry in self.resources:
            if not (
                isinstance(entry, tuple)
                and len(entry) == 2
                and isinstance(entry[0], str)
                and entry[0]
                and _non_negative(entry[1])
            ):
                raise ValueError(
                    "RemotePlacement.resources must be (name, amount) pairs with a non-empty "
                    f"name and a finite amount >= 0, not {entry!r}"
                )
        if self.reference is not None and not (
            isinstance(self.reference, str) and _REFERENCE.fullmatch(self.reference)
        ):
            raise ValueError(
                "RemotePlacement.reference must be 'package.module:attribute', "
                f"not {self.reference!r}"
            )
        if not (_non_negative(self.kill_grace) and self.kill_grace > 0):
            raise ValueError(
                "RemotePlacement.kill_grace must be a positive, finite number of seconds, "
                f"not {self.kill_grace!r}"
            )


def _non_negative(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= 0
    )


@final
@dataclass(frozen=True, slots=True)
class RemoteRequest:
    """One allowed call's body to run elsewhere: the tool, its frozen (validated) arguments, the
    call's identity, its timeout and its placement."""

    tool: str
    """The name the call asked for (the tool's effective name in its catalog)."""
    arguments: FrozenJson
    call_id: str
    root_call_id: str
    agent: str | None
    timeout: float | None
    """The tool's own timeout (the driver enforces it by setting the signal); None: none."""
    placement: RemotePlacement


@final
@dataclass(frozen=True, slots=True)
class RemoteSettled:
    """The body ran remotely: `result` is the `ToolExecutionResult` its call gave there (value
    or typed failure, with its deferred contexts and turn conclusion)."""

    result: object
    worker: str = ""
    """Which worker ran it (for records and messages; empty if the runner does not say)."""


@final
@dataclass(frozen=True, slots=True)
class RemoteNotStarted:
    """The signal was set before the body started remotely: it never ran."""

    reason: str


@final
@dataclass(frozen=True, slots=True)
class RemoteLost:
    """The worker or node running the body died (or could not be reached): the body may have
    partly run, and gave nothing back."""

    worker: str
    """The worker or node, as the runner names it."""
    reason: str


RemoteOutcome = RemoteSettled | RemoteNotStarted | RemoteLost
"""What became of a remote body."""


class RemoteRunner(Protocol):
    """Runs tool bodies elsewhere (a Ray cluster, local processes, a script under test)."""

    async def run(
        self, request: RemoteRequest, signal: CancelSignal, runtime: Runtime
    ) -> RemoteOutcome:
        """Run `request`'s body to its end and give what became of it.

        `runtime` is the driver's: the runner waits through its capabilities (`run_blocking`,
        `sleep`) so every interpreter can run it. Once `signal` is set the runner cancels the
        body: the body's own signal is set with the same reason, and a body still running after
        the placement's `kill_grace` has its worker ended (and every process it started).
        """
        ...
