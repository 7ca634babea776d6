"""The batch ledger on its own: what it closes after a runtime fault or an interrupt, nested
calls included (a runtime that abandons running calls is the only way to leave them open)."""

from __future__ import annotations

from toolfx.core import Location
from toolfx.core.pipeline import ToolCall
from toolfx.core.pipeline._batch import BatchLedger
from toolfx.core.records import ToolCallRecord, ToolResultRecord
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import ErrorCode, ToolExecutionFailure, failed
from toolfx.interpreters.sync import SyncRuntime
from toolfx.testing import SinkLog

CALLS = [ToolCall(f"c{i}", "write", {"text": ""}, CancelSignal()) for i in range(3)]


def ledger_with_open_calls(sink: SinkLog, reported: list[str]) -> BatchLedger:
    """c0 finished, c1 started with a nested call n1 still open, c2 not started."""
    runtime = SyncRuntime(on_defect=lambda error, where: reported.append(where))
    ledger = BatchLedger(runtime, Location().catalog(), CALLS, sink)
    assert ledger.sink is not None
    done = failed(ErrorCode.TOOL_ERROR, "done")
    ledger.sink(ToolCallRecord("c0", "c0", "write", None))
    ledger.sink(ToolResultRecord.of("c0", done))
    ledger.keeper(0)(done)
    ledger.sink(ToolCallRecord("c1", "c1", "write", None))
    ledger.sink(ToolCallRecord("n1", "c1", "read", None, parent_call_id="c1"))
    return ledger


def test_a_fault_closes_open_calls_nested_ones_too_and_records_the_unstarted() -> None:
    sink, reported = SinkLog(), list[str]()
    results = ledger_with_open_calls(sink, reported).settled(RuntimeError("gather broke"))
    codes = [r.error.code for r in results if isinstance(r, ToolExecutionFailure)]
    assert codes == [ErrorCode.TOOL_ERROR, ErrorCode.UNEXPECTED_ERROR, ErrorCode.UNEXPECTED_ERROR]
    assert [(r.event, r.call_id) for r in sink.taken[4:]] == [
        ("tool/result", "c1"),
        ("tool/result", "n1"),
        ("tool/call", "c2"),
        ("tool/result", "c2"),
    ]
    closing = sink.taken[5]
    assert isinstance(closing, ToolResultRecord)
    assert closing.result.error is not None
    assert closing.result.error.message.startswith(
        "the batch running `read` failed unexpectedly: RuntimeError: gather broke"
    )
    assert sink.taken[6] == ToolCallRecord("c2", "c2", "write", {"text": ""})
    assert reported == ["the batch (2 of its calls left without a result)"]


def test_an_interrupt_closes_the_open_calls_innermost_first() -> None:
    sink = SinkLog()
    ledger_with_open_calls(sink, []).interrupted(KeyboardInterrupt())
    closings = sink.taken[4:]
    assert [(r.event, r.call_id) for r in closings] == [
        ("tool/result", "n1"),
        ("tool/result", "c1"),
    ]
    for record in closings:
        assert isinstance(record, ToolResultRecord)
        assert record.result.error is not None
        assert record.result.error.code is ErrorCode.ABORTED


def test_a_refused_result_record_is_never_attempted_again() -> None:
    sink = SinkLog(refuse=frozenset({5}))  # the first closing: n1's, innermost
    ledger = ledger_with_open_calls(sink, [])
    ledger.interrupted(KeyboardInterrupt())
    ledger.interrupted(KeyboardInterrupt())  # nothing is open any more
    assert [(r.event, r.call_id, took) for r, took in sink.attempts[4:]] == [
        ("tool/result", "n1", False),
        ("tool/result", "c1", True),
    ]
    assert [fault.record.call_id for fault in ledger.faults] == ["n1"]
