"""The runtime capabilities a description may use: the only operations that suspend.

Core code performs effects only through a `Runtime`, so the same description runs under every
interpreter: the sync one completes each capability at once, the anyio one uses real
concurrency, the deterministic one schedules them on a virtual clock with seeded interleavings.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, Protocol, TypeVar, final

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.runtime._cancel import CancelSignal
    from toolfx.core.runtime._code import CodeEngine
    from toolfx.core.runtime._files import FileSystem
    from toolfx.core.runtime._processes import ProcessRunner
    from toolfx.core.runtime._remote import RemoteRunner
    from toolfx.core.runtime._spills import SpillStore

__all__ = [
    "NO_ONE_TO_ASK",
    "ApprovalReply",
    "ApprovalRequest",
    "Cancelled",
    "DefectReporter",
    "ProgressEvent",
    "ProgressReporter",
    "RejectedWithFeedback",
    "Runtime",
    "deadline_reason",
    "log_defect",
]

T = TypeVar("T")

DefectReporter = Callable[[BaseException, str], None]
"""Receives a contained exception with a note of where it happened; the caller goes on."""

_log: Final = logging.getLogger("toolfx")


def log_defect(error: BaseException, where: str) -> None:
    """The default defect reporter: an ERROR record with the traceback on the `toolfx` logger."""
    _log.error("toolfx: %s raised", where, exc_info=error)


def deadline_reason(seconds: float) -> str:
    """The reason every interpreter gives a signal its deadline set."""
    return f"timed out after {seconds:g}s"


class Cancelled(Exception):
    """A capability returned early because the signal it watched was set."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@final
@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """An `ask`: which call, on whose behalf, the permission action, patterns and the reason."""

    call_id: str
    tool: str
    agent: str | None
    permission: str
    patterns: tuple[str, ...]
    reason: str | None
    arguments: FrozenJson
    always: tuple[str, ...] = ()
    """Exactly the rules an `allowed-always` answer remembers (none: `always` is not offered)."""
    preview: str | None = None
    """What the call will do, for the person answering (e.g. a unified diff of a file change with
    the file's real line numbers, bounded); None: the call's own pending card tells it. Not kept
    in the ask's record (`ToolApprovalRecord`): it is shown, not replayed."""


@final
@dataclass(frozen=True, slots=True)
class RejectedWithFeedback:
    """A rejection with a correction: the call fails with the feedback and the model goes on."""

    feedback: str


ApprovalReply = (
    Literal["allowed-once", "allowed-always", "rejected", "cancelled", "unavailable", "deferred"]
    | RejectedWithFeedback
)
"""The approval service's answer; an `ask` runs its call only on `allowed-once` or
`allowed-always` (which also remembers the request's `always` rules, when it offers any).

`unavailable` answers "no one could be asked" (e.g. a command line without a terminal): the call
fails, and the model is told so (`NO_ONE_TO_ASK`), not that the user rejected it.

`deferred` answers "later": the call settles as APPROVAL_PENDING without doing what it asked
for, and a journaled run resumes it once the ask is answered (`toolfx.core.journal`)."""


NO_ONE_TO_ASK: Final = (
    "no one was there to answer the ask (this is not a rejection: the user can allow it by"
    " answering asks, or with a rule)"
)
"""What the model is told of an ask answered `unavailable`: no one could be asked."""


@final
@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """How far a running call has got: its call id and tool, the progress so far, the total if
    known (both in the tool's own units, finite), and a message if any."""

    call_id: str
    tool: str
    progress: float
    total: float | None = None
    message: str | None = None


ProgressReporter = Callable[[ProgressEvent], None]
"""Receives the progress of running calls (a display, a log); it must not block."""


class Runtime(Protocol):
    """Capabilities: time, cancellation points, concurrency, blocking work, approvals, spills,
    files, processes, the Code Mode engine and remote bodies."""

    def now(self) -> float:
        """Monotonic time in seconds."""
        ...

    async def sleep(self, seconds: float, signal: CancelSignal | None = None) -> None:
        """Wait; raise `Cancelled` if `signal` is set first."""
        ...

    async def checkpoint(self) -> None:
        """A cancellation point where other work may run."""
        ...

    async def gather(self, thunks: Sequence[Callable[[], Awaitable[T]]], limit: int) -> list[T]:
        """Run the thunks with at most `limit` (at least 1) at once; results in their order."""
        ...

    async def deadline(
        self, seconds: float, signal: CancelSignal, thunk: Callable[[], Awaitable[T]]
    ) -> T:
        """Run `thunk`; set `signal` if it is still running after `seconds`; wait for it."""
        ...

    async def run_blocking(self, function: Callable[[], T]) -> T:
        """Run a plain function that may block (in a thread where the interpreter can)."""
        ...

    async def approve(self, request: ApprovalRequest, signal: CancelSignal) -> ApprovalReply:
        """Ask the approval service; `cancelled` if `signal` is set first."""
        ...

    def progress(self, event: ProgressEvent) -> None:
        """Receive a running call's progress: hand it to the host's reporter, if it has one."""
        ...

    def report(self, error: BaseException, where: str) -> None:
        """Receive a contained defect (a raising listener or observer) with where it happened."""
        ...

    @property
    def files(self) -> FileSystem:
        """The file system leaves read and write through."""
        ...

    @property
    def processes(self) -> ProcessRunner:
        """The process runner leaves start commands through."""
        ...

    @property
    def spills(self) -> SpillStore:
        """Where the whole text of an output cut for the model is kept."""
        ...

    @property
    def code(self) -> CodeEngine:
        """The engine Code Mode programs run in."""
        ...

    @property
    def remote(self) -> RemoteRunner | None:
        """Where the bodies of tools that opt in (`RemotePlacement`) run; None: here."""
        ...
