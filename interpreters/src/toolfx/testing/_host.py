"""What the conformance scenarios hand the interpreter under test, and how they get one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, final

from toolfx.core.runtime import (
    ApprovalReply,
    ApprovalRequest,
    CodeEngine,
    Description,
    Interpreter,
    ProgressEvent,
    ProgressReporter,
    RemoteRunner,
    SpillStore,
)

__all__ = ["Host", "Interpret", "InterpreterFactory", "ignore_progress", "unavailable"]

Interpret = Callable[[Description[Any]], Any]
"""An interpreter's `run`, as the scenarios call it."""


def unavailable(request: ApprovalRequest) -> ApprovalReply:
    """An approval service that never answers."""
    return "unavailable"


def ignore_progress(event: ProgressEvent) -> None:
    """A progress reporter that drops what it is given."""


@final
@dataclass(frozen=True, slots=True)
class Host:
    """What a scenario's interpreter must use: its runtime's `approve` answers with `approvals`,
    `report` hands each defect to `report`, `progress` hands each event to `progress`, its
    `spills` is `spills` when given (else the interpreter's own store), its `code` engine is
    `code` when given (else the interpreter's own), and its `remote` runner is `remote` (None:
    none, every body runs locally)."""

    approvals: Callable[[ApprovalRequest], ApprovalReply]
    report: Callable[[BaseException, str], None]
    progress: ProgressReporter
    spills: SpillStore | None = None
    code: CodeEngine | None = None
    remote: RemoteRunner | None = None


InterpreterFactory = Callable[[Host], Interpreter]
"""Builds the interpreter under test around a scenario's `Host`; called once per scenario."""
