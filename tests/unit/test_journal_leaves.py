"""Journaled leaves over the in-memory file system and scripted processes: a leaf whose permission
ask is deferred has no effect until the answer, then exactly one; read, glob and grep left in
doubt by a crash run again (they change nothing), write does not."""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import Any

import pytest

from tests.leaves_support import ROOT, LeafSession, failure, text_of
from toolfx.core.codemode import RUN_CODE
from toolfx.core.journal import JournaledBatch, JournaledSession
from toolfx.core.pipeline import ToolCall
from toolfx.core.records import ToolCallRecord
from toolfx.core.registry import Location
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, CancelSignal
from toolfx.core.tools import ErrorCode, ToolExecutionResult, ToolExecutionSuccess
from toolfx.interpreters.testing import (
    DeterministicInterpreter,
    MemorySpills,
    Pause,
    ScriptedCode,
    ScriptedProcess,
    ScriptedProcesses,
)
from toolfx.leaves._tools import workspace_tools
from toolfx.testing._scenarios_journal import ListJournal


def one_call(name: str, **arguments: Any) -> list[ToolCall]:
    """A batch of one call of `name`, id call-1."""
    return [ToolCall("call-1", name, arguments, CancelSignal())]


def run(
    session: LeafSession,
    journal: ListJournal,
    calls: Sequence[ToolCall],
    answers: Mapping[str, ApprovalReply] | None = None,
) -> JournaledBatch:
    """Run `calls` as a journaled batch in a new session over `journal` (answering first)."""
    journaled = JournaledSession(journal)
    described = (
        journaled.execute(session.catalog, calls)
        if answers is None
        else journaled.resume(session.catalog, calls, answers)
    )
    batch: JournaledBatch = session.interpreter.run(described)
    return batch


def only(batch: JournaledBatch) -> ToolExecutionResult:
    """The one result of a batch of one call."""
    [result] = batch.results
    return result


def test_a_deferred_write_writes_only_once_answered() -> None:
    session = LeafSession(replies=["deferred"])
    journal = ListJournal()
    calls = one_call("write", path="a.txt", content="hi")
    waiting = run(session, journal, calls)
    pending = failure(only(waiting))
    assert pending.error.code is ErrorCode.APPROVAL_PENDING
    assert pending.error.info.details == {"waitingFor": ["call-1"]}
    assert "`write` is waiting for approval of edit" in pending.error.message
    assert f"{ROOT}/a.txt" not in session.fs.snapshot()
    [ask] = waiting.open_asks
    assert (ask.call_id, ask.permission, ask.reply) == ("call-1", "edit", "deferred")
    resumed = run(session, journal, calls, {"call-1": "allowed-once"})
    assert resumed.outcomes == ("resumed",)
    assert isinstance(only(resumed), ToolExecutionSuccess)
    assert session.text(f"{ROOT}/a.txt") == "hi"
    assert len(session.asked) == 1  # the resumed ask took the journal's answer
    assert run(session, journal, calls).outcomes == ("replayed",)


def started(processes: ScriptedProcesses) -> int:
    """How many commands the process table started so far."""
    return len(processes.runs)


def test_a_deferred_bash_command_starts_only_once_answered() -> None:
    processes = ScriptedProcesses([(lambda argv: True, ScriptedProcess(stdout=b"built\n"))])
    session = LeafSession(replies=["deferred"], processes=processes)
    journal = ListJournal()
    calls = one_call("bash", command="make")
    assert failure(only(run(session, journal, calls))).error.code is ErrorCode.APPROVAL_PENDING
    assert started(processes) == 0
    [ask] = JournaledSession(journal).open_asks()
    assert (ask.permission, ask.patterns) == ("bash", ("make",))
    resumed = run(session, journal, calls, {"call-1": "allowed-once"})
    assert "built" in text_of(only(resumed))
    assert started(processes) == 1
    run(session, journal, calls)  # replayed
    assert started(processes) == 1


def test_a_deferred_leaf_rejected_later_never_acts() -> None:
    session = LeafSession(replies=["deferred"])
    journal = ListJournal()
    calls = one_call("write", path="a.txt", content="hi")
    run(session, journal, calls)
    rejected = run(session, journal, calls, {"call-1": "rejected"})
    assert failure(only(rejected)).error.code is ErrorCode.DENIED
    assert f"{ROOT}/a.txt" not in session.fs.snapshot()
    assert JournaledSession(journal).open_asks() == ()


def crashed_before_result(session: LeafSession, calls: Sequence[ToolCall]) -> ListJournal:
    """The journal of a crash just after `calls` started: their `tool/call` records only."""
    journal = ListJournal()
    run(session, journal, calls)
    return ListJournal(r for r in journal.records() if isinstance(r, ToolCallRecord))


@pytest.mark.parametrize(
    ("name", "arguments"),
    [("read", {"path": "notes.txt"}), ("glob", {"pattern": "*.txt"}), ("grep", {"regex": "hi"})],
)
def test_a_read_only_leaf_in_doubt_runs_again(name: str, arguments: dict[str, Any]) -> None:
    session = LeafSession({f"{ROOT}/notes.txt": "hi there\n"})
    calls = one_call(name, **arguments)
    journal = crashed_before_result(session, calls)
    recovered = run(session, journal, calls)
    assert recovered.outcomes == ("rerun",)
    assert isinstance(only(recovered), ToolExecutionSuccess)
    assert "notes.txt" in text_of(only(recovered)) or "hi there" in text_of(only(recovered))


def test_a_write_in_doubt_is_not_run_again() -> None:
    session = LeafSession(replies=["allowed-once"])
    calls = one_call("write", path="a.txt", content="hi")
    journal = crashed_before_result(session, calls)
    session.fs.add_file(f"{ROOT}/a.txt", "changed since")
    recovered = run(session, journal, calls)
    assert recovered.outcomes == ("in-doubt",)
    assert failure(only(recovered)).error.code is ErrorCode.IN_DOUBT
    assert session.text(f"{ROOT}/a.txt") == "changed since"
    assert [r.event for r in journal.records()] == ["tool/call", "tool/result"]
    assert len(session.asked) == 1  # not asked again either


def test_a_program_whose_write_is_deferred_resumes_without_writing_twice() -> None:
    def answer(request: ApprovalRequest) -> ApprovalReply:
        return "deferred" if request.patterns == ("b.txt",) else "allowed-once"

    def script() -> Generator[Pause, object, object]:
        first = yield Pause.call("write", path="a.txt", content="a")
        second = yield Pause.call("write", path="b.txt", content="b")
        return [first, second]

    session = LeafSession(replies=answer)
    location = Location()
    for tool in workspace_tools(session.workspace):
        location.register(tool)
    location.add_scope("coder")
    location.present_as("coder", "code")
    catalog = location.catalog("coder")
    engine = ScriptedCode({"program": script})
    interpreter = DeterministicInterpreter(
        seed=5, approvals=answer, files=session.fs, spills=MemorySpills(), code=engine
    )
    calls = [ToolCall("outer", RUN_CODE, {"code": "program"}, CancelSignal())]
    journal = ListJournal()
    waiting = interpreter.run(JournaledSession(journal).execute(catalog, calls))
    pending = failure(only(waiting))
    assert pending.error.code is ErrorCode.APPROVAL_PENDING
    assert pending.error.info.details == {"waitingFor": ["outer:code:2"]}
    assert session.text(f"{ROOT}/a.txt") == "a"
    assert f"{ROOT}/b.txt" not in session.fs.snapshot()
    session.fs.add_file(f"{ROOT}/a.txt", "changed since")
    resumed = interpreter.run(
        JournaledSession(journal).resume(catalog, calls, {"outer:code:2": "allowed-once"})
    )
    assert isinstance(only(resumed), ToolExecutionSuccess)
    assert session.text(f"{ROOT}/a.txt") == "changed since"  # the first write was not run again
    assert session.text(f"{ROOT}/b.txt") == "b"


def test_a_leaf_approval_that_cannot_be_journaled_is_not_approved() -> None:
    session = LeafSession(replies=["allowed-once"])
    journal = ListJournal(refuse=lambda record: record.event == "tool/approval")
    result = only(run(session, journal, one_call("write", path="a.txt", content="hi")))
    assert failure(result).error.code is ErrorCode.UNEXPECTED_ERROR
    assert f"{ROOT}/a.txt" not in session.fs.snapshot()
    assert len(session.asked) == 1
