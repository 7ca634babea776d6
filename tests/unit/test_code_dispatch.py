"""Code Mode's bridge: sub-call records, the code-dispatch-log waterfall, a refusing sink.

A fake engine session (tests/unit/test_codemode_transport.py) asks for the calls; what is
checked here is what the pipeline does with them: the records, in order, and the logged copy.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from hypothesis import given
from hypothesis import strategies as st

from tests.unit.test_codemode_transport import FakeEngine, FakeSession, _location
from toolfx.core import (
    CallsWaiting,
    CancelSignal,
    CodeDispatchLog,
    ContentBlock,
    HostCall,
    ProgramFinished,
    SessionRecord,
    TextBlock,
    ToolCall,
    ToolCallRecord,
    ToolCodeDispatchRecord,
    ToolExecutionSuccess,
    ToolResultRecord,
    execute,
    record_from_json,
)
from toolfx.interpreters import SyncRuntime, run_sync

Next = Callable[[], Awaitable[tuple[ContentBlock, ...]]]


def _run_two_calls(
    listeners: tuple[Callable[[CodeDispatchLog, Next], Awaitable[object]], ...] = (),
    sink: Callable[[SessionRecord], None] | None = None,
    reported: list[str] | None = None,
) -> tuple[object, FakeSession]:
    ran: list[int] = []
    location = _location(ran)
    for listener in listeners:
        location.on_code_dispatch_log(listener, "agent")  # type: ignore[arg-type]
    session = FakeSession(
        [
            CallsWaiting((HostCall(0, "double", {"x": 1}), HostCall(1, "nope", {}))),
            lambda answers: ProgramFinished(len(ran)),
        ]
    )
    noted = [] if reported is None else reported
    runtime = SyncRuntime(
        code=FakeEngine(session), on_defect=lambda error, where: noted.append(where)
    )
    call = ToolCall("c1", "run_code", {"code": "p"}, CancelSignal())
    return run_sync(execute(location.catalog("agent"), call, sink), runtime), session


def test_each_sub_call_is_opened_then_closed_by_its_code_dispatch() -> None:
    records: list[SessionRecord] = []
    result, _ = _run_two_calls(sink=records.append)
    assert isinstance(result, ToolExecutionSuccess)
    assert [(r.event, r.call_id) for r in records] == [
        ("tool/call", "c1"),
        ("tool/call", "c1:code:1"),
        ("tool/code-dispatch", "c1:code:1"),
        ("tool/call", "c1:code:2"),
        ("tool/code-dispatch", "c1:code:2"),
        ("tool/result", "c1"),
    ]
    opened = records[1]
    assert isinstance(opened, ToolCallRecord)
    assert (opened.parent_call_id, opened.root_call_id, opened.agent) == ("c1", "c1", "agent")
    settled = records[4]
    assert isinstance(settled, ToolCodeDispatchRecord)
    assert (settled.name, settled.is_error, settled.parent_call_id) == ("nope", True, "c1")
    assert isinstance(records[-1], ToolResultRecord)


def test_a_listener_replaces_only_the_logged_copy() -> None:
    records: list[SessionRecord] = []
    seen: list[tuple[str, str, bool]] = []

    async def shorten(log: CodeDispatchLog, next_content: Next) -> tuple[ContentBlock, ...]:
        seen.append((log.sub_call_id, log.name, log.is_error))
        assert log.execution.call_id == "c1"
        assert log.agent == "agent"
        original = await next_content()
        return (TextBlock(f"[{len(original)} block(s) kept elsewhere]"),)

    _, session = _run_two_calls((shorten,), records.append)
    assert seen == [("c1:code:1", "double", False), ("c1:code:2", "nope", True)]
    logged = [r for r in records if isinstance(r, ToolCodeDispatchRecord)]
    assert [r.content for r in logged] == [(TextBlock("[1 block(s) kept elsewhere]"),)] * 2
    answers = session.answers[0]
    assert answers[0].value == 2  # type: ignore[index, union-attr]  # the program got the value


def test_a_raising_or_malformed_listener_falls_back_to_the_original() -> None:
    async def broken(log: CodeDispatchLog, next_content: Next) -> tuple[ContentBlock, ...]:
        raise LookupError("listener bug")

    async def wrong(log: CodeDispatchLog, next_content: Next) -> object:
        return ("not a block",)

    for listener in (broken, wrong):
        records: list[SessionRecord] = []
        reported: list[str] = []
        _run_two_calls((listener,), records.append, reported)
        logged = [r for r in records if isinstance(r, ToolCodeDispatchRecord)]
        assert logged[0].content == (TextBlock("2"),)
        assert reported == [
            "a code-dispatch-log listener (logging c1:code:1)",
            "a code-dispatch-log listener (logging c1:code:2)",
        ]


def test_a_listener_of_another_scope_sees_nothing() -> None:
    seen: list[str] = []

    async def other(log: CodeDispatchLog, next_content: Next) -> tuple[ContentBlock, ...]:
        seen.append(log.sub_call_id)
        return await next_content()

    location = _location([])
    location.add_scope("elsewhere")
    location.on_code_dispatch_log(other, "elsewhere")
    session = FakeSession(
        [CallsWaiting((HostCall(0, "double", {"x": 1}),)), lambda a: ProgramFinished(None)]
    )
    call = ToolCall("c1", "run_code", {"code": "p"}, CancelSignal())
    run_sync(execute(location.catalog("agent"), call), SyncRuntime(code=FakeEngine(session)))
    assert seen == []


def test_a_sub_call_whose_record_is_refused_does_not_run() -> None:
    ran: list[int] = []
    location = _location(ran)

    def refuse_sub_calls(record: SessionRecord) -> None:
        if isinstance(record, ToolCallRecord) and record.parent_call_id is not None:
            raise OSError("disk full")

    session = FakeSession(
        [CallsWaiting((HostCall(0, "double", {"x": 1}),)), lambda a: ProgramFinished(None)]
    )
    call = ToolCall("c1", "run_code", {"code": "p"}, CancelSignal())
    run_sync(
        execute(location.catalog("agent"), call, refuse_sub_calls),
        SyncRuntime(code=FakeEngine(session), on_defect=lambda e, w: None),
    )
    assert ran == []
    answer = session.answers[0][0]  # type: ignore[index]
    assert answer.exception == "RuntimeError"  # type: ignore[union-attr]
    assert "UNEXPECTED_ERROR" in answer.message  # type: ignore[union-attr]


_TEXT = st.text(max_size=20)


@given(_TEXT, _TEXT, _TEXT, st.booleans(), st.lists(_TEXT, max_size=3))
def test_code_dispatch_records_round_trip(
    call_id: str, parent: str, name: str, is_error: bool, texts: list[str]
) -> None:
    record = ToolCodeDispatchRecord(
        call_id, parent, name, is_error, tuple(TextBlock(t) for t in texts)
    )
    wire = record.to_json()
    assert wire["event"] == "tool/code-dispatch"  # type: ignore[index, call-overload]
    assert record_from_json(wire).unwrap() == record
    assert ToolCodeDispatchRecord.from_json(wire).unwrap() == record
