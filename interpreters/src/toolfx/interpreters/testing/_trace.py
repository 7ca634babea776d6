"""The deterministic scheduler's trace: what happened, at which step, time and task."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, final

__all__ = ["TraceEvent", "TraceKind"]

TraceKind = Literal[
    "spawn",
    "checkpoint",
    "sleep",
    "wait",
    "wake",
    "approve",
    "deadline",
    "files",
    "process",
    "report",
    "progress",
    "fault",
    "done",
    "failed",
    "abandoned",
]
"""What a trace event records (`wait`: for the tasks it started; `files`: a file operation;
`process`: a scripted process starting or ending; `progress`: a call's progress)."""


@final
@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One thing that happened: the latest step, the virtual time, the task (None: no task)."""

    step: int
    time: float
    task: int | None
    kind: TraceKind
    detail: str = ""

    def __str__(self) -> str:
        who = "scheduler" if self.task is None else f"task {self.task}"
        return f"#{self.step} t={self.time:g} {who}: {self.kind} {self.detail}".rstrip()
