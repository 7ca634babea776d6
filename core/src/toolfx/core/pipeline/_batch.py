"""A turn's calls as one description: exclusive calls are barriers, parallel runs share a pool.

Every call gets exactly one result, in order, even when the runtime fails the batch (see the ledger
below: a fault gives the unfinished calls UNEXPECTED_ERROR results; an interrupt propagates after
closing the open `tool/call` records) or the record sink raises (see
`toolfx.core.records.write_record`: the fault is reported and listed in `BatchResult.record_faults`;
no result is lost).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TypeAlias, cast, final, overload

from toolfx.core.pipeline._body import SETTLED
from toolfx.core.pipeline._call import run_call, started_call
from toolfx.core.pipeline._schedule import schedule
from toolfx.core.records import (
    RecordFault,
    ToolCallRecord,
    ToolCodeDispatchRecord,
    ToolResultRecord,
    write_record,
)
from toolfx.core.runtime import Description
from toolfx.core.tools import ErrorCode, ToolExecutionResult, ToolExecutionSuccess, defect, failed

if TYPE_CHECKING:
    from toolfx.core.pipeline._call import ToolCall
    from toolfx.core.pipeline._resumption import Resumption
    from toolfx.core.pipeline._schedule import Decoding
    from toolfx.core.records import RecordSink, SessionRecord
    from toolfx.core.registry import Catalog
    from toolfx.core.runtime import Runtime
    from toolfx.core.tools import ContextMessage

__all__ = ["DEFAULT_PARALLEL_LIMIT", "BatchLedger", "BatchResult", "Thunk", "execute_batch"]

Thunk: TypeAlias = Callable[[], Coroutine[Any, Any, ToolExecutionResult]]
"""What runs one call of a parallel run when the runtime's `gather` calls it."""


DEFAULT_PARALLEL_LIMIT: Final[int] = 32


"""How many parallel-safe calls of one run may overlap unless the caller says otherwise.

The peers (the OpenAI Agents SDK, pydantic-ai, LangGraph's ToolNode) start every call of a turn
at once. Here the model chooses how many calls a turn holds, and what each call holds while it
waits (a grep's file, a read's text) is bounded per call, not per turn: a bound on the calls in
flight keeps one turn's memory bounded too. 32 is about anyio's thread limiter (40 per loop),
which a blocking body or a file operation waits for anyway. `limit=None` starts every call of a
run at once, for tools that hold little while they wait (pure async I/O)."""


@final
@dataclass(frozen=True, slots=True)
class BatchResult:
    """A turn's results in the model's order, its deferred contexts, and whether it concludes."""

    results: tuple[ToolExecutionResult, ...]
    record_faults: tuple[RecordFault, ...] = ()
    """The records the sink refused (each also reported to the runtime); the results are whole."""

    @property
    def additional_contexts(self) -> tuple[ContextMessage, ...]:
        """Every result's additional contexts, in call order, for after the batch."""
        return tuple(c for result in self.results for c in result.additional_contexts)

    @property
    def concludes_turn(self) -> bool:
        """Whether a successful result asked to end the agent's turn."""
        return any(isinstance(r, ToolExecutionSuccess) and r.concludes_turn for r in self.results)


def execute_batch(
    catalog: Catalog,
    calls: Sequence[ToolCall],
    limit: int | None = DEFAULT_PARALLEL_LIMIT,
    sink: RecordSink | None = None,
    *,
    resumption: Resumption | None = None,
) -> Description[BatchResult]:
    """The description of a turn's calls: barriers, rolling pools of `limit` (None: all of a
    run at once), results in order.

    `resumption` is a journaled run's (`toolfx.core.journal`), for Code Mode sub-calls.
    """
    if limit is not None and limit < 1:
        raise ValueError(f"the parallel limit must be at least 1, not {limit}")
    frozen_calls = tuple(calls)

    async def program(runtime: Runtime) -> BatchResult:
        ledger = BatchLedger(runtime, catalog, frozen_calls, sink)
        results, sink_of_calls = ledger.results, ledger.sink
        try:
            planned = schedule(catalog, frozen_calls)
            decodings = planned.decodings
            for group in planned.groups:
                if len(group) == 1:
                    index = group[0]
                    results[index] = await run_call(
                        runtime,
                        catalog,
                        frozen_calls[index],
                        sink_of_calls,
                        None,
                        resumption,
                        decodings[index],
                    )
                    continue
                thunks = _RunThunks(group, ledger.thunk_maker(resumption, decodings))
                width = len(thunks) if limit is None else limit
                for index, result in zip(group, await runtime.gather(thunks, width), strict=True):
                    results[index] = result
        except Exception as fault:  # the runtime failed the batch: the unfinished calls fail
            return BatchResult(ledger.settled(fault), tuple(ledger.faults))
        except BaseException as interrupt:  # it goes on, once the open call records are closed
            ledger.interrupted(interrupt)
            raise
        # every group either filled its places or raised
        return BatchResult(
            cast(tuple[ToolExecutionResult, ...], tuple(results)), tuple(ledger.faults)
        )

    return Description(program)


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
        return _Keeper(self.results, index)

    def thunk_maker(
        self, resumption: Resumption | None, decodings: list[Decoding | None]
    ) -> Callable[[int], Thunk]:
        """What makes the thunk that runs the call at an index (with the decoding its scheduling
        made, see `schedule`, taken out of `decodings`), keeping its result here."""
        runtime, catalog, calls, sink, keeper = (
            self._runtime,
            self._catalog,
            self._calls,
            self.sink,
            self.keeper,
        )

        def thunk(index: int) -> Thunk:  # a partial: no coroutine frame of its own
            decoded, decodings[index] = decodings[index], None  # handed over: held by the call
            keep = keeper(index)
            return functools.partial(
                _started, runtime, catalog, calls[index], sink, keep, resumption, decoded
            )

        return thunk

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
                if write_record(runtime, sink, call.record(self._catalog.scope)) is None:
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


def _started(  # noqa: PLR0917 (a partial's bound state: `run_call`'s parameters)
    runtime: Runtime,
    catalog: Catalog,
    call: ToolCall,
    sink: RecordSink | None,
    keep: Callable[[ToolExecutionResult], object],
    resumption: Resumption | None,
    decoded: Decoding | None,
) -> Coroutine[Any, Any, ToolExecutionResult]:
    """`run_call` started at once, as the runtime takes the thunk: the coroutine that finishes
    the call (its task runs it directly, no `run_call` frame around it), or its result as one."""
    started = started_call(catalog, call, sink, runtime, keep, resumption, decoded)
    return _given(started) if isinstance(started, SETTLED) else started


async def _given(result: ToolExecutionResult) -> ToolExecutionResult:
    """A call's result given at once, as the coroutine a thunk gives."""
    return result


@final
class _Keeper:
    """Keeps one call's result in its place as soon as it is final: one object per running call
    (a partial of the list's bound `__setitem__` is three)."""

    __slots__ = ("_index", "_results")

    def __init__(self, results: list[ToolExecutionResult | None], index: int) -> None:
        self._results = results
        self._index = index

    def __call__(self, result: ToolExecutionResult) -> None:
        self._results[self._index] = result


@final
class _RunThunks(Sequence["Thunk"]):
    """A parallel run's thunks, each made when the runtime takes it: none is kept alive while the
    run's calls are (ten thousand calls in flight are that many fewer objects for the collector
    to walk, again and again)."""

    __slots__ = ("_group", "_make")

    def __init__(self, group: list[int], make: Callable[[int], Thunk]) -> None:
        self._group = group
        self._make = make

    def __len__(self) -> int:
        return len(self._group)

    def __iter__(self) -> Iterator[Thunk]:
        return map(self._make, self._group)  # not Sequence's by index: no step of ours per thunk

    @overload
    def __getitem__(self, position: int) -> Thunk: ...
    @overload
    def __getitem__(self, position: slice) -> Sequence[Thunk]: ...
    def __getitem__(self, position: int | slice) -> Thunk | Sequence[Thunk]:
        if isinstance(position, slice):
            return [self._make(index) for index in self._group[position]]
        return self._make(self._group[position])


def _take(
    sink: RecordSink, open_calls: dict[str, str], faults: list[RecordFault], record: SessionRecord
) -> None:
    """Pass `record` to the caller's sink, noting the open calls and what the sink refused."""
    if isinstance(record, ToolResultRecord | ToolCodeDispatchRecord):  # a sub-call's closing
        open_calls.pop(record.call_id, None)  # attempted once: never attempted again
    try:
        sink(record)
    except Exception as error:
        faults.append(RecordFault(record, error))
        raise
    if isinstance(record, ToolCallRecord):
        open_calls[record.call_id] = record.name
