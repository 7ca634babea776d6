"""Runtime faults under every interpreter: a raising approval service, record sink or gather,
and an interrupt, still give each call of a batch one result, in order, with paired records.

Each scenario runs under the interpreter under test (`fault_world` holds the tools and what was
reported, `fault_interpret` is the interpreter's `run`); a raising capability comes from
`FaultyRuntime` wrapped around the interpreter's own runtime. The last scenario (a raising
capability inside a call's body or its timeout) pins what the pipeline's defect boundary gave.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypedDict

import pytest

from toolfx.core.pipeline import BatchResult, ToolCall, execute_batch
from toolfx.core.records import SessionRecord, ToolCallRecord, ToolResultRecord
from toolfx.core.registry import Location
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, CancelSignal
from toolfx.core.tools import (
    Ask,
    ErrorCode,
    Output,
    PreToolDecision,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolRunContext,
    define_tool,
)
from toolfx.testing._faulty_runtime import Capability, CapabilityFault, FaultPlan, SinkLog, faulty
from toolfx.testing._host import Host, Interpret, InterpreterFactory, ignore_progress

__all__ = ["FaultScenarios", "FaultWorld"]


class Args(TypedDict):
    text: str


@dataclass
class FaultWorld:
    """The tools, the approval service, and what was reported, observed and run."""

    location: Location = field(default_factory=Location)
    approve: Callable[[ApprovalRequest], ApprovalReply] = lambda request: "allowed-once"
    reported: list[tuple[BaseException, str]] = field(default_factory=list)
    observed: list[str] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)

    def answer(self, request: ApprovalRequest) -> ApprovalReply:
        """The approval service's reply."""
        return self.approve(request)


def calls(*names: str, text: str = "") -> list[ToolCall]:
    return [ToolCall(f"c{i}", name, {"text": text}, CancelSignal()) for i, name in enumerate(names)]


def batch(
    fault_world: FaultWorld,
    fault_interpret: Interpret,
    batch_calls: list[ToolCall],
    sink: SinkLog | None = None,
    plan: FaultPlan | None = None,
) -> BatchResult:
    description = execute_batch(fault_world.location.catalog(), batch_calls, limit=2, sink=sink)
    outcome: BatchResult = fault_interpret(
        description if plan is None else faulty(description, plan)
    )
    return outcome


def summary(result: ToolExecutionResult) -> str:
    if isinstance(result, ToolExecutionSuccess):
        return str(result.value)
    return result.error.code.name


def message(result: ToolExecutionResult) -> str:
    assert isinstance(result, ToolExecutionFailure)
    return result.error.message


def events(records: list[SessionRecord]) -> list[tuple[str, str]]:
    return [(record.event, record.call_id) for record in records]


def paired(ids: list[str]) -> list[tuple[str, str]]:
    return [pair for call_id in ids for pair in (("tool/call", call_id), ("tool/result", call_id))]


def durable(records: list[SessionRecord], results: tuple[ToolExecutionResult, ...]) -> None:
    """Each `tool/result` taken holds the durable form of the result the caller got."""
    by_id = {f"c{i}": result for i, result in enumerate(results)}
    for record in records:
        if isinstance(record, ToolResultRecord):
            assert record == ToolResultRecord.of(record.call_id, by_id[record.call_id])


# The approval service ------------------------------------------------------------------------


# The record sink -----------------------------------------------------------------------------


# The runtime's gather ------------------------------------------------------------------------


# Interrupts ----------------------------------------------------------------------------------


# Capabilities a body uses ----------------------------------------------------------------------


class FaultScenarios:
    """Raising runtime capabilities, sinks and approval services, and interrupts."""

    @pytest.fixture
    def fault_world(self) -> FaultWorld:
        """A Location with a parallel-safe `read` and an exclusive `write`, both noting that they
        ran (`interrupt` as the text raises KeyboardInterrupt)."""
        state = FaultWorld()

        def body(args: Args, ctx: ToolRunContext) -> str:
            state.ran.append(ctx.call_id)
            if args["text"] == "interrupt":
                raise KeyboardInterrupt
            return ctx.call_id

        for name, safe in (("read", True), ("write", False)):
            state.location.register(
                define_tool(
                    name=name,
                    description=name,
                    parameters=Args,
                    output=Output(str),
                    execute=body,
                    is_concurrency_safe=(lambda args: True) if safe else None,
                )
            )
        state.location.on_result(lambda execution, result: state.observed.append(execution.call_id))
        return state

    @pytest.fixture
    def fault_interpret(
        self, fault_world: FaultWorld, interpreter_factory: InterpreterFactory
    ) -> Interpret:
        """The `run` of the interpreter under test: `fault_world` answers approvals and keeps each
        reported defect."""

        def report(error: BaseException, where: str) -> None:
            fault_world.reported.append((error, where))

        return interpreter_factory(Host(fault_world.answer, report, ignore_progress)).run

    def test_a_raising_approval_service_fails_that_call_naming_the_service(
        self, fault_world: FaultWorld, fault_interpret: Interpret
    ) -> None:
        def approve(request: ApprovalRequest) -> ApprovalReply:
            if request.call_id == "c1":
                raise ConnectionError("the approval service is down")
            return "allowed-once"

        async def ask(execution: ToolExecution, next_: Any) -> PreToolDecision:
            return Ask("check")

        fault_world.approve = approve
        fault_world.location.add_scope("agent")
        fault_world.location.on_pre_execute(ask)
        sink = SinkLog()
        catalog = fault_world.location.catalog("agent")
        outcome: BatchResult = fault_interpret(
            execute_batch(catalog, calls("write", "write"), sink=sink)
        )
        assert [summary(r) for r in outcome.results] == ["c0", "UNEXPECTED_ERROR"]
        assert message(outcome.results[1]).startswith(
            "the approval service (asked about `write`) failed unexpectedly: ConnectionError"
        )
        assert fault_world.ran == ["c0"]
        assert events(sink.taken) == paired(["c0", "c1"])

    def test_a_raising_approve_capability_fails_that_call_only(
        self, fault_world: FaultWorld, fault_interpret: Interpret
    ) -> None:
        async def ask(execution: ToolExecution, next_: Any) -> PreToolDecision:
            return Ask("check")

        fault_world.location.add_scope("agent")
        fault_world.location.on_pre_execute(ask)
        sink = SinkLog()
        description = execute_batch(
            fault_world.location.catalog("agent"), calls("write", "write"), sink=sink
        )
        outcome = fault_interpret(faulty(description, FaultPlan({"approve": frozenset({2})})))
        assert [summary(r) for r in outcome.results] == ["c0", "UNEXPECTED_ERROR"]
        assert "the approval service (asked about `write`)" in message(outcome.results[1])
        assert events(sink.taken) == paired(["c0", "c1"])

    def test_a_refused_call_record_means_the_call_does_not_run(
        self, fault_world: FaultWorld, fault_interpret: Interpret
    ) -> None:
        sink = SinkLog(refuse=frozenset({3}))  # the `tool/call` of c1
        outcome = batch(fault_world, fault_interpret, calls("write", "write", "write"), sink)
        assert [summary(r) for r in outcome.results] == ["c0", "UNEXPECTED_ERROR", "c2"]
        assert message(outcome.results[1]).startswith(
            "writing the `tool/call` record of `write` (the call was not run) failed unexpectedly: "
            "OSError: [Errno 28] No space left on device"
        )
        assert fault_world.ran == ["c0", "c2"]
        assert fault_world.observed == ["c0", "c1", "c2"]  # the observers see why c1 did not run
        assert events(sink.taken) == paired(["c0", "c2"])  # no result without its call
        (fault,) = outcome.record_faults
        assert (fault.record.event, fault.record.call_id) == ("tool/call", "c1")
        assert [where for _, where in fault_world.reported] == [
            "the record sink, taking the `tool/call` of c1"
        ]
        durable(sink.taken, outcome.results)

    def test_a_refused_result_record_loses_no_result(
        self, fault_world: FaultWorld, fault_interpret: Interpret
    ) -> None:
        sink = SinkLog(refuse=frozenset({4}))  # the `tool/result` of c1, in the parallel group
        outcome = batch(fault_world, fault_interpret, calls("write", "read", "read"), sink)
        assert [summary(r) for r in outcome.results] == ["c0", "c1", "c2"]
        (fault,) = outcome.record_faults
        assert isinstance(fault.record, ToolResultRecord)
        assert isinstance(fault.error, OSError)
        index = int(fault.record.call_id[1:])  # either parallel call may write its result first
        assert fault.record == ToolResultRecord.of(fault.record.call_id, outcome.results[index])
        assert [where for _, where in fault_world.reported] == [
            f"the record sink, taking the `tool/result` of {fault.record.call_id}"
        ]
        assert len(sink.attempts) == 6  # every call's two records were written

    def test_a_disk_that_fills_up_refuses_the_calls_after_it(
        self, fault_world: FaultWorld, fault_interpret: Interpret
    ) -> None:
        sink = SinkLog(full_from=4)  # c1's `tool/result` and everything after
        outcome = batch(fault_world, fault_interpret, calls("write", "write", "read", "read"), sink)
        assert [summary(r) for r in outcome.results] == ["c0", "c1"] + ["UNEXPECTED_ERROR"] * 2
        assert fault_world.ran == ["c0", "c1"]
        assert events(sink.taken) == [*paired(["c0"]), ("tool/call", "c1")]
        assert [fault.record.event for fault in outcome.record_faults] == ["tool/result"] + [
            "tool/call"
        ] * 2
        assert len(fault_world.reported) == 3

    @pytest.mark.parametrize("runs", [0, 1, 2])
    def test_a_raising_gather_fails_only_the_calls_it_did_not_finish(
        self, fault_world: FaultWorld, fault_interpret: Interpret, runs: int
    ) -> None:
        sink = SinkLog()
        plan = FaultPlan({"gather": frozenset({1})}, gather_runs=runs)
        outcome = batch(
            fault_world, fault_interpret, calls("write", "read", "read", "write"), sink, plan
        )
        finished = ["c0", "c1", "c2"][: 1 + runs]
        expected = finished + ["UNEXPECTED_ERROR"] * (4 - len(finished))
        assert [summary(r) for r in outcome.results] == expected
        assert sorted(fault_world.ran) == finished  # the batch stops at the fault: c3 never runs
        assert message(outcome.results[-1]).startswith(
            "the batch running `write` failed unexpectedly: CapabilityFault: the runtime's gather"
        )
        assert sorted(events(sink.taken)) == sorted(paired(["c0", "c1", "c2", "c3"]))
        assert sorted(events(sink.taken)[: 2 * len(finished)]) == sorted(paired(finished))
        durable(sink.taken, outcome.results)
        (fault, where) = fault_world.reported[-1]
        assert isinstance(fault, CapabilityFault)
        assert where == f"the batch ({4 - len(finished)} of its calls left without a result)"

    def test_a_raising_gather_without_a_sink_still_gives_every_result(
        self, fault_world: FaultWorld, fault_interpret: Interpret
    ) -> None:
        plan = FaultPlan({"gather": frozenset({1})}, gather_runs=1)
        outcome = batch(fault_world, fault_interpret, calls("read", "read"), plan=plan)
        assert [summary(r) for r in outcome.results] == ["c0", "UNEXPECTED_ERROR"]
        assert outcome.record_faults == ()

    def test_an_interrupt_propagates_after_closing_the_open_call_record(
        self, fault_world: FaultWorld, fault_interpret: Interpret
    ) -> None:
        sink = SinkLog()
        batch_calls = [
            *calls("write"),
            ToolCall("c1", "write", {"text": "interrupt"}, CancelSignal()),
        ]
        batch_calls.append(ToolCall("c2", "write", {"text": ""}, CancelSignal()))
        with pytest.raises(KeyboardInterrupt):
            batch(fault_world, fault_interpret, batch_calls, sink)
        assert events(sink.taken) == paired(["c0", "c1"])  # c2 never started: no record
        closing = sink.taken[-1]
        assert isinstance(closing, ToolResultRecord)
        assert closing.result.error is not None
        assert closing.result.error.code is ErrorCode.ABORTED
        assert closing.result.error.message == (
            "`write` was interrupted (KeyboardInterrupt) before it finished"
        )
        assert isinstance(sink.taken[2], ToolCallRecord)
        assert fault_world.observed == ["c0"]

    @pytest.mark.parametrize("capability", ["checkpoint", "sleep", "run_blocking", "deadline"])
    def test_a_raising_capability_in_a_call_fails_that_call_only(
        self, fault_world: FaultWorld, fault_interpret: Interpret, capability: Capability
    ) -> None:
        async def body(args: Args, ctx: ToolRunContext) -> str:
            await ctx.runtime.checkpoint()
            await ctx.runtime.sleep(0)
            await ctx.runtime.run_blocking(lambda: None)
            return ctx.call_id

        fault_world.location.register(
            define_tool(
                name="slow",
                description="slow",
                parameters=Args,
                output=Output(str),
                execute=body,
                timeout=60,  # a deadline around the body
            )
        )
        sink = SinkLog()
        plan = FaultPlan({capability: frozenset({1})})
        outcome = batch(fault_world, fault_interpret, calls("slow", "slow"), sink, plan)
        assert [summary(r) for r in outcome.results] == ["UNEXPECTED_ERROR", "c1"]
        assert f"CapabilityFault: the runtime's {capability} failed (use 1)" in message(
            outcome.results[0]
        )
        assert events(sink.taken) == paired(["c0", "c1"])
        durable(sink.taken, outcome.results)
