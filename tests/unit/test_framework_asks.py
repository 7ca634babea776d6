"""The bridge between a framework's human in the loop and the pipeline's asks."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from toolfx.core import (
    CancelSignal,
    ErrorCode,
    Location,
    ToolCall,
    ToolExecutionFailure,
    execute,
)
from toolfx.interpreters import DeterministicInterpreter, MemoryFileSystem, SyncRuntime, run_sync
from toolfx.interpreters._framework_asks import MAX_OPEN_CALLS, AskLedger, FrameworkRuntime
from toolfx.leaves import Workspace, workspace_tools

if TYPE_CHECKING:
    from toolfx.core import ApprovalReply, ApprovalRequest, Runtime


class Interrupted(Exception):
    """A stand-in for a framework's interruption."""


def _location() -> Location:
    location = Location()
    for leaf in workspace_tools(Workspace("/ws")):
        location.register(leaf)
    return location


def _write(call_id: str = "w1") -> ToolCall:
    return ToolCall(call_id, "write", {"path": "a.txt", "content": "x"}, CancelSignal())


def _run(decide: object, files: MemoryFileSystem) -> tuple[object, list[FrameworkRuntime]]:
    made: list[FrameworkRuntime] = []

    def wrap(inner: Runtime) -> Runtime:
        made.append(FrameworkRuntime(inner, decide))  # type: ignore[arg-type]
        return made[-1]

    interpreter = DeterministicInterpreter(seed=1, files=files, wrap=wrap)
    return interpreter.run(execute(_location().catalog(), _write())), made


def test_a_reply_from_the_framework_answers_the_ask() -> None:
    files = MemoryFileSystem.from_files({"/ws/keep.txt": ""})
    result, _ = _run(lambda request: "allowed-once", files)
    assert getattr(result, "error", None) is None
    assert files.snapshot()["/ws/a.txt"] == b"x"


def test_an_interruption_is_held_the_call_ends_before_its_effect_and_is_raised_again() -> None:
    files = MemoryFileSystem.from_files({"/ws/keep.txt": ""})
    asked: list[ApprovalRequest] = []

    def decide(request: ApprovalRequest) -> ApprovalReply:
        asked.append(request)
        raise Interrupted(request.permission)

    result, made = _run(decide, files)
    assert result.error.code is ErrorCode.ABORTED  # type: ignore[attr-defined]
    assert "/ws/a.txt" not in files.snapshot()
    assert [request.permission for request in asked] == ["edit"]
    with pytest.raises(Interrupted, match="edit"):
        made[0].raise_interruption()


def test_none_hands_the_ask_to_the_runtime_s_own_approvals() -> None:
    seen: list[str] = []

    def approvals(request: ApprovalRequest) -> ApprovalReply:
        seen.append(request.permission)
        return "rejected"

    runtime = FrameworkRuntime(SyncRuntime(approvals=approvals), lambda request: None)
    location = Location()
    for leaf in workspace_tools(Workspace("/nowhere-toolfx-test")):
        location.register(leaf)
    result = run_sync(execute(location.catalog(), _write()), runtime)
    assert seen == ["edit"]
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is ErrorCode.DENIED
    runtime.raise_interruption()  # nothing held: nothing raised


def test_the_ledger_replays_answers_and_pends_only_unseen_asks() -> None:
    files = MemoryFileSystem.from_files({"/ws/keep.txt": ""})
    ledger = AskLedger()

    def decide(request: ApprovalRequest) -> ApprovalReply:
        reply = ledger.answer("w1", request)
        if reply is not None:
            return reply
        raise Interrupted(ledger.pend("w1", request).describe())

    _, made = _run(decide, files)
    assert isinstance(made[0].interruption, Interrupted)
    ledger.settle("w1", "allowed-once")
    result, made = _run(decide, files)
    assert made[0].interruption is None
    assert getattr(result, "error", None) is None
    assert files.snapshot()["/ws/a.txt"] == b"x"
    ledger.forget("w1")
    assert ledger.answer("w1", _any_edit_request()) is None


def test_the_ledger_holds_a_bounded_number_of_calls() -> None:
    ledger = AskLedger()
    request = _any_edit_request()
    for n in range(MAX_OPEN_CALLS + 5):
        ledger.pend(f"c{n}", request)
        ledger.settle(f"c{n}", "allowed-once")
    assert ledger.answer("c0", request) is None
    assert ledger.answer(f"c{MAX_OPEN_CALLS + 4}", request) == "allowed-once"
    ledger.settle("never-pended", "rejected")  # nothing pending: nothing settled
    assert ledger.answer("never-pended", request) is None


def _any_edit_request() -> ApprovalRequest:
    from toolfx.core import ApprovalRequest

    return ApprovalRequest("w1", "write", None, "edit", ("a.txt",), None, {})
