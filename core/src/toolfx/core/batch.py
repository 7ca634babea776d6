"""A turn's calls as one description: exclusive calls are barriers, parallel runs share a pool.

Every call gets exactly one result, in order, even when the runtime fails the batch (see
batch_ledger.py: a fault gives the unfinished calls UNEXPECTED_ERROR results; an interrupt
propagates after closing the open `tool/call` records) or the record sink raises (see sink.py:
the fault is reported and listed in `BatchResult.record_faults`; no result is lost).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, cast, final

from toolfx.core.batch_ledger import BatchLedger
from toolfx.core.catalog import Catalog, ExecutionMode
from toolfx.core.content import ContextMessage
from toolfx.core.description import Description
from toolfx.core.pipeline import ToolCall, run_call
from toolfx.core.results import ToolExecutionResult, ToolExecutionSuccess
from toolfx.core.runtime import Runtime
from toolfx.core.sink import RecordFault, RecordSink

__all__ = ["DEFAULT_PARALLEL_LIMIT", "BatchResult", "execute_batch", "schedule"]

DEFAULT_PARALLEL_LIMIT: Final = 8
"""How many parallel-safe calls of one run may overlap unless the caller says otherwise."""


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


def schedule(catalog: Catalog, calls: Sequence[ToolCall]) -> list[list[int]]:
    """Group call indexes: each exclusive call alone, each maximal run of parallel ones together."""
    groups: list[list[int]] = []
    previous: ExecutionMode = "exclusive"
    for index, call in enumerate(calls):
        mode = _mode(catalog, call)
        if mode == "parallel" and previous == "parallel":
            groups[-1].append(index)
        else:
            groups.append([index])
        previous = mode
    return groups


def _mode(catalog: Catalog, call: ToolCall) -> ExecutionMode:
    if call.arguments_error is not None:  # the call snapshotted its arguments when built
        return "exclusive"
    return catalog.execution_mode(call.name, call.arguments)  # type: ignore[arg-type]


def execute_batch(
    catalog: Catalog,
    calls: Sequence[ToolCall],
    limit: int = DEFAULT_PARALLEL_LIMIT,
    sink: RecordSink | None = None,
) -> Description[BatchResult]:
    """The description of a turn's calls: barriers, rolling pools of `limit`, results in order."""
    if limit < 1:
        raise ValueError(f"the parallel limit must be at least 1, not {limit}")
    frozen_calls = tuple(calls)

    async def program(runtime: Runtime) -> BatchResult:
        ledger = BatchLedger(runtime, catalog, frozen_calls, sink)
        results, sink_of_calls = ledger.results, ledger.sink
        try:
            for group in schedule(catalog, frozen_calls):
                if len(group) == 1:
                    call = frozen_calls[group[0]]
                    results[group[0]] = await run_call(runtime, catalog, call, sink_of_calls)
                    continue
                thunks = [  # partials: no extra coroutine frame to resume at every wake-up
                    functools.partial(
                        run_call,
                        runtime,
                        catalog,
                        frozen_calls[index],
                        sink_of_calls,
                        ledger.keeper(index),
                    )
                    for index in group
                ]
                for index, result in zip(group, await runtime.gather(thunks, limit), strict=True):
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
