"""A Runtime test double whose capabilities raise on chosen uses, around any interpreter's runtime.

`faulty(description, plan)` wraps the runtime the interpreter hands the description, so the same
faults run under sync, anyio (asyncio, trio) and the deterministic interpreter. A raising
capability raises `CapabilityFault` (an Exception, never `Cancelled`) before it does anything,
except a raising `gather`, which first runs `gather_runs` of its thunks through the real one.
`SinkLog` is a record sink that raises `OSError(ENOSPC)` on chosen records, like a full disk.
"""

from __future__ import annotations

import errno
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, final

from toolfx.core import Description
from toolfx.core.records import SessionRecord
from toolfx.core.runtime import (
    ApprovalReply,
    ApprovalRequest,
    CancelSignal,
    DelegatingRuntime,
    Runtime,
)

__all__ = [
    "Capability",
    "CapabilityFault",
    "FaultPlan",
    "FaultyRuntime",
    "SinkLog",
    "faulty",
]

T = TypeVar("T")

Capability = Literal["sleep", "checkpoint", "gather", "deadline", "run_blocking", "approve"]
"""A capability that can be made to raise."""


class CapabilityFault(Exception):
    """What a faulty capability raises: which one, and which of its uses (from 1)."""

    def __init__(self, capability: Capability, use: int) -> None:
        super().__init__(f"the runtime's {capability} failed (use {use})")
        self.capability = capability
        self.use = use


@final
@dataclass(frozen=True)
class FaultPlan:
    """Which uses (counted from 1) of each capability raise."""

    raising: Mapping[Capability, frozenset[int]] = field(default_factory=dict)
    gather_runs: int = 0
    """How many of its thunks a raising gather runs (through the real gather) before it raises."""


@final
class FaultyRuntime(DelegatingRuntime):
    """Forwards every capability to `inner`, except the uses `plan` makes raise."""

    plan: FaultPlan
    """Which uses raise."""
    uses: Counter[Capability]
    """How many times each capability has been used so far."""

    def __init__(self, inner: Runtime, plan: FaultPlan) -> None:
        super().__init__(inner)
        self.plan = plan
        self.uses = Counter()

    def _fault(self, capability: Capability) -> CapabilityFault | None:
        self.uses[capability] += 1
        use = self.uses[capability]
        if use not in self.plan.raising.get(capability, frozenset()):
            return None
        return CapabilityFault(capability, use)

    async def sleep(self, seconds: float, signal: CancelSignal | None = None) -> None:
        """The inner `sleep`, unless this use raises."""
        if fault := self._fault("sleep"):
            raise fault
        await super().sleep(seconds, signal)

    async def checkpoint(self) -> None:
        """The inner `checkpoint`, unless this use raises."""
        if fault := self._fault("checkpoint"):
            raise fault
        await super().checkpoint()

    async def gather(self, thunks: Sequence[Callable[[], Awaitable[T]]], limit: int) -> list[T]:
        """The inner `gather`, unless this use raises (after running `plan.gather_runs` thunks)."""
        if fault := self._fault("gather"):
            if self.plan.gather_runs:
                await super().gather(thunks[: self.plan.gather_runs], limit)
            raise fault
        return await super().gather(thunks, limit)

    async def deadline(
        self, seconds: float, signal: CancelSignal, thunk: Callable[[], Awaitable[T]]
    ) -> T:
        """The inner `deadline`, unless this use raises."""
        if fault := self._fault("deadline"):
            raise fault
        return await super().deadline(seconds, signal, thunk)

    async def run_blocking(self, function: Callable[[], T]) -> T:
        """The inner `run_blocking`, unless this use raises."""
        if fault := self._fault("run_blocking"):
            raise fault
        return await super().run_blocking(function)

    async def approve(self, request: ApprovalRequest, signal: CancelSignal) -> ApprovalReply:
        """The inner `approve`, unless this use raises."""
        if fault := self._fault("approve"):
            raise fault
        return await super().approve(request, signal)


def faulty(description: Description[T], plan: FaultPlan) -> Description[T]:
    """`description`, run on its interpreter's runtime wrapped in a `FaultyRuntime`."""

    def program(runtime: Runtime) -> Coroutine[Any, Any, T]:
        return description.program(FaultyRuntime(runtime, plan))

    return Description(program)


@final
@dataclass
class SinkLog:
    """A record sink that keeps what it took and raises ENOSPC on the chosen records (from 1)."""

    refuse: frozenset[int] = frozenset()
    full_from: int | None = None
    """From this record on (from 1), every record is refused: a disk that stays full."""
    attempts: list[tuple[SessionRecord, bool]] = field(default_factory=list)
    """Every record written to the sink, and whether it took it."""

    def __call__(self, record: SessionRecord) -> None:
        number = len(self.attempts) + 1
        refused = number in self.refuse or (self.full_from is not None and number >= self.full_from)
        self.attempts.append((record, not refused))
        if refused:
            raise OSError(errno.ENOSPC, "No space left on device")

    @property
    def taken(self) -> list[SessionRecord]:
        """The records the sink took, in order."""
        return [record for record, took in self.attempts if took]
