"""Fault injection: the pipeline properties' random batches, with the runtime and the sink failing.

On top of random tools, policies, limits, cancellations and seeds (test_pipeline_properties):
capabilities that raise (sleep, checkpoint, deadline, approve, gather, the last after running
some of its thunks), errors thrown into the batch's own task wherever it waits, and a record sink
that refuses records or fills up. Every call still gets exactly one frozen, JSON-safe result, in
order; every call's records are paired whenever the sink takes them; every refused record is
reported and listed. An interrupt thrown into any task propagates, and closes every call record
it left open.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from tests.properties.test_pipeline_properties import AGENT, Tracker
from toolfx.core.pipeline import BatchResult, ToolCall, execute_batch
from toolfx.core.records import SessionRecord, ToolCallRecord, ToolResultRecord
from toolfx.core.registry import Location
from toolfx.core.tools import (
    ErrorCode,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
)
from toolfx.interpreters.testing import DeterministicInterpreter, Fault, RaiseInto
from toolfx.interpreters.testing._interpreter import Reported
from toolfx.testing import Capability, FaultPlan, SinkLog, faulty
from toolfx.testing.strategies import BatchScenario, batch_scenarios

BATCH_FAULT = "the batch running "
"""How a result the batch filled after a runtime fault begins its message."""


@dataclass
class FaultyRun:
    """What one batch under faults gave, and what the sink, observers and reports saw."""

    calls: list[ToolCall]
    batch: BatchResult | None
    interrupted: KeyboardInterrupt | None
    sink: SinkLog
    observed: list[str]
    reported: tuple[Reported, ...]


# ---------------------------------------------------------------------------------------------
# Strategies

_uses = st.frozensets(st.integers(1, 6), max_size=2)


@st.composite
def fault_plans(draw: st.DrawFn) -> FaultPlan:
    raising: dict[Capability, frozenset[int]] = {
        "sleep": draw(_uses),
        "checkpoint": draw(_uses),
        "deadline": draw(_uses),
        "approve": draw(_uses),
        "gather": draw(st.frozensets(st.integers(1, 3), max_size=1)),
    }
    return FaultPlan(raising, gather_runs=draw(st.integers(0, 4)))


@st.composite
def sinks(draw: st.DrawFn) -> SinkLog:
    refuse = draw(st.frozensets(st.integers(1, 16), max_size=3))
    return SinkLog(refuse, draw(st.none() | st.integers(1, 16)))


@st.composite
def thrown(draw: st.DrawFn) -> list[Fault]:
    """Errors thrown into the batch's own task where it waits; now and then an interrupt instead.

    An interrupt may go to any task (the batch's or a call's in a gather); it comes early enough
    to land in most runs.
    """
    if draw(st.integers(0, 3)) == 0:
        steps = draw(st.lists(st.integers(2, 8), min_size=1, max_size=2, unique=True))
        task = draw(st.sampled_from([0, 0, 1, 2, 3]))
        return [RaiseInto(step, KeyboardInterrupt(), task) for step in steps]
    steps = draw(st.lists(st.integers(2, 16), max_size=2, unique=True))
    return [RaiseInto(step, RuntimeError("thrown into the batch")) for step in steps]


# ---------------------------------------------------------------------------------------------
# Running


def run_with_faults(
    scenario: BatchScenario, plan: FaultPlan, sink: SinkLog, thrown: list[Fault]
) -> FaultyRun:
    """Build the scenario afresh and run its batch once, with the faults, deterministically."""
    observed: list[str] = []
    location = Location()
    location.add_scope(AGENT)
    scenario.register(location, Tracker(len(scenario.calls)))
    location.on_result(lambda execution, result: observed.append(execution.call_id))
    calls = scenario.tool_calls()
    faults = [*scenario.cancel_faults(calls), *thrown]
    interpreter = DeterministicInterpreter(scenario.seed, scenario.approvals(), faults)
    description = execute_batch(location.catalog(AGENT), calls, scenario.limit, sink)
    batch: BatchResult | None = None
    interrupted: KeyboardInterrupt | None = None
    try:
        batch = interpreter.run(faulty(description, plan))
    except KeyboardInterrupt as interrupt:
        interrupted = interrupt
    return FaultyRun(calls, batch, interrupted, sink, observed, interpreter.reported)


# ---------------------------------------------------------------------------------------------
# Checks


def attempts_of(run: FaultyRun, call_id: str) -> list[tuple[SessionRecord, bool]]:
    return [(record, took) for record, took in run.sink.attempts if record.call_id == call_id]


def assert_one_frozen_result_each_in_order(run: FaultyRun) -> tuple[ToolExecutionResult, ...]:
    assert run.batch is not None
    results = run.batch.results
    assert len(results) == len(run.calls)
    for call, result in zip(run.calls, results, strict=True):
        params = getattr(type(result), "__dataclass_params__", None)
        assert dataclasses.is_dataclass(result)
        assert params is not None
        assert params.frozen
        assert isinstance(result.content, tuple)
        json.dumps(ToolResultRecord.of(call.call_id, result).to_json())
        if isinstance(result, ToolExecutionSuccess):  # the model's order: values name the call
            assert result.value in (call.call_id, "stopped", "replaced")
    return results


def assert_records_paired(run: FaultyRun) -> None:
    """Per call: no record, a refused `tool/call`, or a taken one and then its `tool/result`."""
    for call in run.calls:
        attempts = attempts_of(run, call.call_id)
        kinds = [(type(record), took) for record, took in attempts]
        assert kinds in (
            [],
            [(ToolCallRecord, False)],
            [(ToolCallRecord, True), (ToolResultRecord, True)],
            [(ToolCallRecord, True), (ToolResultRecord, False)],
        )
        if run.interrupted is None:  # no interrupt: every call was recorded
            assert attempts != []


def assert_records_hold_the_results(
    run: FaultyRun, results: tuple[ToolExecutionResult, ...]
) -> None:
    """A result record is the durable form of the result; a refused call did not run."""
    for call, result in zip(run.calls, results, strict=True):
        (opened, took_call), *rest = attempts_of(run, call.call_id)
        assert isinstance(opened, ToolCallRecord)
        if took_call:
            ((closing, _),) = rest
            assert closing == ToolResultRecord.of(call.call_id, result)
        else:  # not run: refused by the sink, or left by a runtime fault before it started
            assert isinstance(result, ToolExecutionFailure)
            assert result.error.message.startswith(("writing the `tool/call` record", BATCH_FAULT))


def assert_refusals_reported_and_listed(run: FaultyRun) -> None:
    assert run.batch is not None
    refused = [record for record, took in run.sink.attempts if not took]
    assert [fault.record for fault in run.batch.record_faults] == refused
    assert all(isinstance(fault.error, OSError) for fault in run.batch.record_faults)
    sink_reports = [where for _, where in run.reported if where.startswith("the record sink")]
    assert sink_reports == [
        f"the record sink, taking the `{r.event}` of {r.call_id}" for r in refused
    ]


def assert_observed_unless_filled(run: FaultyRun, results: tuple[ToolExecutionResult, ...]) -> None:
    """Observers see every result the pipeline gave; only results the batch filled are unseen."""
    seen = Counter(run.observed)
    for call, result in zip(run.calls, results, strict=True):
        filled = isinstance(result, ToolExecutionFailure) and result.error.message.startswith(
            BATCH_FAULT
        )
        assert seen[call.call_id] == (0 if filled else 1)


# ---------------------------------------------------------------------------------------------
# Properties


@given(batch_scenarios(), fault_plans(), sinks(), thrown())
def test_under_runtime_and_sink_faults_every_call_gets_one_result_with_paired_records(
    scenario: BatchScenario, plan: FaultPlan, sink: SinkLog, faults: list[Fault]
) -> None:
    run = run_with_faults(scenario, plan, sink, faults)
    assert_records_paired(run)
    if run.interrupted is not None:  # it propagated, and closed every call record it left open
        assert any(
            isinstance(f.error, KeyboardInterrupt) for f in faults if isinstance(f, RaiseInto)
        )
        closed_by_it = [
            record.result.error
            for record, _ in run.sink.attempts
            if isinstance(record, ToolResultRecord)
            and record.result.error is not None
            and "was interrupted (KeyboardInterrupt)" in record.result.error.message
        ]
        assert all(error.code is ErrorCode.ABORTED for error in closed_by_it)
        return
    results = assert_one_frozen_result_each_in_order(run)
    assert_records_hold_the_results(run, results)
    assert_refusals_reported_and_listed(run)
    assert_observed_unless_filled(run, results)
