"""What a batch knows while its calls run, and how it settles them when the runtime fails it.

The ledger keeps each call's result as soon as it is final and watches the records the sink
takes: which `tool/call` records are still open (no `tool/result` yet) and which records the
sink refused. Two ways a batch can end early:

- A runtime fault: an `Exception` from the runtime itself (`gather` raising, or a fault thrown
  into the batch's own task). The batch still returns a result for every call, in order: the
  calls without one get an UNEXPECTED_ERROR failure naming the fault. Each open `tool/call` gets
  its `tool/result`; a call that never started gets both records. The fault is reported.
- An interrupt: a `BaseException` that is not an `Exception` (KeyboardInterrupt, SystemExit, the
  backend's cancellation, the close of an abandoned coroutine). It propagates; on its way out,
  each open `tool/call` (innermost first) gets an ABORTED `tool/result` saying what interrupted
  it. Calls that never started leave no record, and no observer sees the ABORTED results.

Either way the records stay paired whenever the sink takes them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import final

from toolfx.core.catalog import Catalog
from toolfx.core.failure import ErrorCode
from toolfx.core.outcomes import defect, failed
from toolfx.core.pipeline import ToolCall
from toolfx.core.records import SessionRecord, ToolCallRecord, ToolResultRecord
from toolfx.core.results import ToolExecutionResult
from toolfx.core.runtime import Runtime
from toolfx.core.sink import RecordFault, RecordSink, write_record

__all__ = ["BatchLedger"]


@final
class BatchLedger:
    """One batch's results so far, its open `tool/call` records and the records its sink refused."""

    __slots__ = ("_calls", "_catalog", "_open", "_runtime", "faults", "results", "sink")

    def __init__(
        self,
        runtime: Runtime,
        catalog: Catalog,
        calls: Sequence[ToolCall],
        sink: RecordSink | None,
    ) -> None:
        self._runtime = runtime
        self._catalog = catalog
        self._calls = calls
        self._open: dict[str, str] = {}  # call id -> tool name, for each `tool/call` still open
        self.results: list[ToolExecutionResult | None] = [None] * len(calls)
        """Each call's result once it is final, by the call's index."""
        self.faults: list[RecordFault] = []
        """The records the sink refused, in the order they were written."""
        self.sink: RecordSink | None = (
            None if sink is None else functools.partial(_take, sink, self._open, self.faults)
        )
        """The sink the batch's calls write to: the caller's, watched by this ledger."""

    def keeper(self, index: int) -> Callable[[ToolExecutionResult], object]:
        """What keeps the result of the call at `index` as soon as it is final."""
        return functools.partial(self.results.__setitem__, index)

    def settled(self, fault: Exception) -> tuple[ToolExecutionResult, ...]:
        """Every call's result after a runtime fault: UNEXPECTED_ERROR for the unfinished ones."""
        filled = {
            index: defect(fault, f"the batch running `{self._calls[index].name}`")
            for index, result in enumerate(self.results)
            if result is None
        }
        self._runtime.report(fault, f"the batch ({len(filled)} of its calls left without a result)")
        for index, result in filled.items():
            self.results[index] = result
        sink, runtime = self.sink, self._runtime
        if sink is not None:
            unfinished = {self._calls[index].call_id: index for index in filled}
            for call_id, name in list(self._open.items()):  # started: close what they opened
                if call_id in unfinished:
                    closing = filled[unfinished.pop(call_id)]
                else:  # a call nested in one of the batch's
                    closing = defect(fault, f"the batch running `{name}`")
                write_record(runtime, sink, ToolResultRecord.of(call_id, closing))
            for index in unfinished.values():  # the rest never started: both records, in order
                call = self._calls[index]
                if write_record(runtime, sink, self._opened(call)) is None:
                    write_record(runtime, sink, ToolResultRecord.of(call.call_id, filled[index]))
        return tuple(result for result in self.results if result is not None)

    def interrupted(self, interrupt: BaseException) -> None:
        """Close each open `tool/call` (innermost first) with an ABORTED `tool/result`."""
        sink, why = self.sink, type(interrupt).__name__
        if sink is None:  # nothing was recorded, so nothing is open
            return
        for call_id, name in reversed(list(self._open.items())):
            result = failed(
                ErrorCode.ABORTED, f"`{name}` was interrupted ({why}) before it finished"
            )
            write_record(self._runtime, sink, ToolResultRecord.of(call_id, result))

    def _opened(self, call: ToolCall) -> ToolCallRecord:
        """The `tool/call` record `run_call` would have written for a call that never started."""
        return ToolCallRecord(
            call.call_id,
            call.root_call_id or call.call_id,
            call.name,
            None if call.arguments_error is not None else call.arguments,  # type: ignore[arg-type]
            self._catalog.scope,
            call.parent_call_id,
        )


def _take(
    sink: RecordSink, open_calls: dict[str, str], faults: list[RecordFault], record: SessionRecord
) -> None:
    """Pass `record` to the caller's sink, noting the open calls and what the sink refused."""
    if isinstance(record, ToolResultRecord):
        open_calls.pop(record.call_id, None)  # attempted once: never attempted again
    try:
        sink(record)
    except Exception as error:
        faults.append(RecordFault(record, error))
        raise
    if isinstance(record, ToolCallRecord):
        open_calls[record.call_id] = record.name
