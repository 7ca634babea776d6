"""Helpers the leaf tests share: a workspace with its leaves under the deterministic interpreter
(in-memory files, scripted processes, recorded asks, spills in memory) or on a real folder under
anyio."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from toolfx.core.json import thaw_json
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.records import result_view_from_json
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, CancelSignal, ProgressEvent
from toolfx.core.tools import (
    TextBlock,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolResultView,
)
from toolfx.interpreters._os.spills import AnyioFolderSpills
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio
from toolfx.interpreters.testing import (
    DeterministicInterpreter,
    MemoryFileSystem,
    MemorySpills,
    ScriptedProcesses,
)
from toolfx.leaves._rules import Rule
from toolfx.leaves._tools import workspace_tools
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.workspace import Workspace, WorkspaceLimits

__all__ = [
    "ROOT",
    "STATE",
    "Answer",
    "Backend",
    "LeafSession",
    "card_of",
    "catalog_of",
    "failure",
    "run_real",
    "text_of",
    "value_of",
]

ROOT = "/ws"
"""The workspace root of the in-memory sessions."""

STATE = "/state/toolfx/ws"
"""The state folder of the in-memory sessions (outside the workspace, as `state_folder` puts it)."""

Answer = Callable[[ApprovalRequest], ApprovalReply]
"""Answers one approval request."""

Backend = Literal["asyncio", "trio"]
"""An anyio backend the real-folder tests run on."""


def catalog_of(workspace: Workspace) -> Catalog:
    """A catalog with every built-in leaf of `workspace` registered."""
    location = Location()
    for tool in workspace_tools(workspace):
        location.register(tool)
    return location.catalog()


def text_of(result: ToolExecutionResult) -> str:
    """The text the model sees of a result (one text block)."""
    (block,) = result.content
    assert isinstance(block, TextBlock)
    return block.text


def value_of(result: ToolExecutionResult) -> Any:
    """The plain JSON value of a success (fails the test on a failure)."""
    assert isinstance(result, ToolExecutionSuccess), result
    return thaw_json(result.value)


def failure(result: ToolExecutionResult) -> ToolExecutionFailure:
    """The result, which must be a failure."""
    assert isinstance(result, ToolExecutionFailure), result
    return result


def card_of(result: ToolExecutionResult) -> ToolResultView:
    """The completed card a result carries as its meta."""
    return result_view_from_json(result.meta).unwrap()


class LeafSession:
    """A workspace at `ROOT` over an in-memory file system and a process table; asks recorded."""

    def __init__(
        self,
        files: Mapping[str, str | bytes] | None = None,
        *,
        replies: Sequence[ApprovalReply] | Answer = (),
        rules: Sequence[Rule] = (),
        processes: ScriptedProcesses | None = None,
        limits: WorkspaceLimits | None = None,
    ) -> None:
        self.fs = MemoryFileSystem.from_files({f"{ROOT}/.keep": "", **(files or {})})
        self.asked: list[ApprovalRequest] = []
        script = list(replies) if not callable(replies) else []
        self._reply: Answer = (
            replies if callable(replies) else (lambda r: script.pop(0) if script else "unavailable")
        )
        self.processes = ScriptedProcesses() if processes is None else processes
        self.workspace = Workspace(ROOT, Permissions(rules), state_dir=STATE, limits=limits)
        self.catalog = catalog_of(self.workspace)
        self.spills = MemorySpills()
        self.progress: list[ProgressEvent] = []
        self.interpreter = DeterministicInterpreter(
            seed=3,
            approvals=self._answer,
            files=self.fs,
            processes=self.processes,
            spills=self.spills,
            progress=self.progress.append,
        )
        self._calls = 0

    def _answer(self, request: ApprovalRequest) -> ApprovalReply:
        self.asked.append(request)
        return self._reply(request)

    def call(self, name: str, **arguments: Any) -> ToolExecutionResult:
        """Run one call of `name` through the pipeline."""
        result: ToolExecutionResult = self.interpreter.run(
            execute(self.catalog, self.next_call(name, arguments))
        )
        return result

    def next_call(
        self, name: str, arguments: Mapping[str, Any], signal: CancelSignal | None = None
    ) -> ToolCall:
        """The next call of `name` (ids `call-1`, `call-2`, ...)."""
        self._calls += 1
        return ToolCall(f"call-{self._calls}", name, dict(arguments), signal or CancelSignal())

    def asks(self) -> list[tuple[str, tuple[str, ...]]]:
        """Each ask so far: its permission and patterns."""
        return [(request.permission, request.patterns) for request in self.asked]

    def text(self, path: str) -> str:
        """The content of the file at `path` now."""
        return self.fs.snapshot()[path].decode()


def run_real(
    catalog: Catalog,
    call: ToolCall,
    backend: Backend,
    answer: Answer = lambda request: "allowed-once",
    spills: str | None = None,
) -> ToolExecutionResult:
    """Run `call` on the real machine under anyio's `backend`, approvals from `answer`, cut
    outputs kept in the folder `spills` (None: a private temporary one)."""
    runtime = AnyioRuntime(approvals=answer, spills=AnyioFolderSpills(spills))
    result: ToolExecutionResult = run_anyio(execute(catalog, call), backend, runtime)
    return result
