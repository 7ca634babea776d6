"""Remote bodies: what the scripted remote gives back is what the pipeline makes of it, the same
under every interpreter; policy, timeouts and observers stay with the caller.

Each scenario builds its interpreter around a `ScriptedRemote` (`remote_interpret`), so the
body crosses a pickle boundary and runs on a signal of its own, as on a worker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypedDict

import pytest
from returns.result import Failure, Result

from toolfx.core.pipeline import ToolCall, execute, execute_batch
from toolfx.core.records import SessionRecord, ToolCallRecord, ToolResultRecord
from toolfx.core.registry import Location
from toolfx.core.runtime import (
    ApprovalRequest,
    Cancelled,
    CancelSignal,
    ProgressEvent,
    RemoteOutcome,
    RemotePlacement,
    RemoteRequest,
    RemoteRunner,
    RemoteSettled,
    Runtime,
)
from toolfx.core.tools import (
    ContextMessage,
    Deny,
    ErrorCode,
    Output,
    PostToolDecision,
    PreToolDecision,
    ReplaceContent,
    TextBlock,
    ToolDefinition,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolFailure,
    ToolRunContext,
    define_tool,
    text,
)
from toolfx.interpreters.testing import ScriptedRemote, WorkerCrash
from toolfx.testing._host import Host, Interpret, InterpreterFactory, ignore_progress, unavailable

__all__ = ["RemoteScenarios"]

PLACEMENT = RemotePlacement(cpus=0.5, resources=(("gpu", 1.0),), kill_grace=0.5)


class Args(TypedDict):
    text: str


@dataclass(frozen=True)
class Echoed:
    """A typed output: it crosses as JSON and comes back decoded by the caller's renderer."""

    text: str
    length: int


@dataclass
class Remote:
    """A scenario's Location, its scripted remote, and what the bodies and observers saw."""

    location: Location
    runner: RemoteRunner
    caller: CancelSignal = field(default_factory=CancelSignal)
    ran: list[str] = field(default_factory=list)
    signals: list[CancelSignal] = field(default_factory=list)
    observed: list[ToolExecutionResult] = field(default_factory=list)

    def register(
        self, body: Callable[[Args, ToolRunContext], Any], output: Any = str, **extra: Any
    ) -> ToolDefinition[Args, Any]:
        """Register `body` as the remote tool `t` (placement `PLACEMENT` unless given)."""
        tool = tool_t(body, output, **extra)
        self.location.register(tool)
        return tool

    def call(self, interpret: Interpret, arguments: object = None) -> ToolExecutionResult:
        """Run one call of `t` (arguments `{"text": "hi"}` unless given) on the caller's signal."""
        given = {"text": "hi"} if arguments is None else arguments
        call = ToolCall("call-1", "t", given, self.caller)
        result: ToolExecutionResult = interpret(execute(self.location.catalog(), call))
        return result


def tool_t(
    body: Callable[[Args, ToolRunContext], Any], output: Any = str, **extra: Any
) -> ToolDefinition[Args, Any]:
    """The tool `t` running `body` (placement `PLACEMENT` unless given)."""
    extra.setdefault("remote", PLACEMENT)
    return define_tool(
        name="t", description="d", parameters=Args, output=Output(output), execute=body, **extra
    )


def code_of(result: ToolExecutionResult) -> ErrorCode | None:
    """The failure's code, or None for a success."""
    return result.error.code if isinstance(result, ToolExecutionFailure) else None


class RemoteScenarios:
    """A tool whose body runs remotely: results, failures, cancellation, lost workers."""

    @pytest.fixture
    def remote(self) -> Remote:
        """An empty Location and a scripted remote whose worker sees its tools."""
        location = Location()
        return Remote(location, ScriptedRemote(location.get, latency=0.01))

    @pytest.fixture
    def scripted(self, remote: Remote) -> RemoteRunner:
        """The remote the scenario's interpreter hands its remote bodies to (at first)."""
        return remote.runner

    @pytest.fixture
    def remote_interpret(
        self, remote: Remote, interpreter_factory: InterpreterFactory
    ) -> Interpret:
        """The `run` of the interpreter under test, its remote bodies on `remote.runner` (which
        a scenario may replace before it runs a call)."""
        remote.location.on_result(lambda execution, result: remote.observed.append(result))
        return interpreter_factory(
            Host(unavailable, _ignore, ignore_progress, remote=_Current(remote))
        ).run

    def test_a_remote_body_gives_the_result_a_local_one_gives(
        self, remote: Remote, scripted: RemoteRunner, remote_interpret: Interpret
    ) -> None:
        def body(args: Args, ctx: ToolRunContext) -> Echoed:
            remote.ran.append(args["text"])
            remote.signals.append(ctx.signal)
            ctx.defer_context(ContextMessage(text("remember this"), "t"))
            ctx.conclude_turn()
            return Echoed(args["text"], len(args["text"]))

        remote.register(body, Echoed, timeout=30.0)
        result = remote.call(remote_interpret)
        assert isinstance(result, ToolExecutionSuccess)
        assert result.value == {"text": "hi", "length": 2}
        assert result.content == (TextBlock('{"text":"hi","length":2}'),)
        assert result.concludes_turn
        assert [c.content for c in result.additional_contexts] == [(TextBlock("remember this"),)]
        assert remote.ran == ["hi"]
        assert remote.signals[0] is not remote.caller  # the worker's own signal
        assert isinstance(scripted, ScriptedRemote)
        assert scripted.requests == [
            RemoteRequest("t", {"text": "hi"}, "call-1", "call-1", None, 30.0, PLACEMENT)
        ]
        assert remote.observed == [result]  # observers stay with the caller

    def test_a_typed_failure_comes_back_typed(
        self, remote: Remote, remote_interpret: Interpret
    ) -> None:
        def body(args: Args, ctx: ToolRunContext) -> Result[str, ToolFailure]:
            ctx.defer_context(ContextMessage(text("tried"), "t"))
            return Failure(
                ToolFailure.of(ErrorCode.TOOL_ERROR, "no such branch", {"branch": args["text"]})
            )

        remote.register(body)
        result = remote.call(remote_interpret)
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.code is ErrorCode.TOOL_ERROR
        assert result.error.message == "no such branch"
        assert result.error.info.details == {"branch": "hi"}
        assert [c.content for c in result.additional_contexts] == [(TextBlock("tried"),)]

    def test_a_remote_defect_is_unexpected_error_and_the_turn_goes_on(
        self, remote: Remote, remote_interpret: Interpret
    ) -> None:
        def body(args: Args, ctx: ToolRunContext) -> str:
            if args["text"] == "boom":
                raise ValueError("the remote body broke")
            return args["text"]

        remote.register(body, is_concurrency_safe=True)
        calls = [
            ToolCall("a", "t", {"text": "boom"}, remote.caller),
            ToolCall("b", "t", {"text": "fine"}, remote.caller),
        ]
        batch = remote_interpret(execute_batch(remote.location.catalog(), calls))
        first, second = batch.results
        assert code_of(first) is ErrorCode.UNEXPECTED_ERROR
        assert "the remote body broke" in first.error.message
        assert second == ToolExecutionSuccess("fine", (TextBlock("fine"),))

    def test_remote_calls_of_a_batch_keep_their_order(
        self, remote: Remote, remote_interpret: Interpret
    ) -> None:
        async def body(args: Args, ctx: ToolRunContext) -> str:
            await ctx.runtime.sleep(0.001 * (10 - int(args["text"])))
            return args["text"]

        remote.register(body, is_concurrency_safe=True)
        calls = [ToolCall(f"c{i}", "t", {"text": str(i)}, remote.caller) for i in range(10)]
        batch = remote_interpret(execute_batch(remote.location.catalog(), calls))
        assert [r.value for r in batch.results if isinstance(r, ToolExecutionSuccess)] == [
            str(i) for i in range(10)
        ]

    def test_the_timeout_stays_with_the_caller_and_reaches_the_remote_body(
        self, remote: Remote, remote_interpret: Interpret
    ) -> None:
        async def body(args: Args, ctx: ToolRunContext) -> str:
            try:
                await ctx.runtime.sleep(30, ctx.signal)
            except Cancelled as cancelled:
                remote.ran.append(cancelled.reason)
                raise
            return "slept"

        remote.register(body, timeout=0.05)
        assert code_of(remote.call(remote_interpret)) is ErrorCode.TOOL_TIMEOUT
        assert remote.ran == ["timed out after 0.05s"]  # the worker's body saw the deadline

    def test_a_cancel_before_the_remote_body_starts_never_runs_it(
        self, remote: Remote, remote_interpret: Interpret
    ) -> None:
        remote.runner = ScriptedRemote(
            remote.location.get, arrived=lambda request: remote.caller.cancel("user left")
        )

        def body(args: Args, ctx: ToolRunContext) -> str:
            remote.ran.append("ran")
            return "ran"

        remote.register(body)
        result = remote.call(remote_interpret)
        assert code_of(result) is ErrorCode.ABORTED_BEFORE_DISPATCH
        assert "user left" in result.error.message  # type: ignore[union-attr]
        assert remote.ran == []

    def test_a_cancel_during_the_remote_body_reaches_it_as_its_own_signal(
        self, remote: Remote, remote_interpret: Interpret
    ) -> None:
        async def body(args: Args, ctx: ToolRunContext) -> str:
            remote.caller.cancel("stop now")  # the caller cancels while the body runs
            try:
                await ctx.runtime.sleep(30, ctx.signal)
            except Cancelled as cancelled:
                remote.ran.append(cancelled.reason)
                ctx.defer_context(ContextMessage(text("stopped early"), "t"))
                raise
            return "slept"

        remote.register(body)
        result = remote.call(remote_interpret)
        assert code_of(result) is ErrorCode.ABORTED
        assert remote.ran == ["stop now"]
        assert [c.content for c in result.additional_contexts] == [(TextBlock("stopped early"),)]

    @pytest.mark.parametrize("when", ["before", "after"])
    def test_a_lost_worker_is_remote_lost_naming_it(
        self, remote: Remote, remote_interpret: Interpret, when: str
    ) -> None:
        crash = WorkerCrash("before" if when == "before" else "after", "node 7 went away")
        remote.runner = ScriptedRemote(remote.location.get, crashes={"call-1": crash})

        def body(args: Args, ctx: ToolRunContext) -> str:
            remote.ran.append("ran")
            return "ran"

        remote.register(body)
        result = remote.call(remote_interpret)
        assert code_of(result) is ErrorCode.REMOTE_LOST
        message = result.error.message  # type: ignore[union-attr]
        assert "scripted worker 1" in message
        assert "node 7 went away" in message
        assert remote.ran == ([] if when == "before" else ["ran"])

    def test_policy_stays_with_the_caller(
        self, remote: Remote, scripted: RemoteRunner, remote_interpret: Interpret
    ) -> None:
        remote.register(lambda args, ctx: args["text"])

        async def deny_no(execution: ToolExecution, next_: Any) -> PreToolDecision:
            return Deny("not remote") if execution.arguments == {"text": "no"} else await next_()

        async def replace(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
            return ReplaceContent((TextBlock("replaced at home"),))

        remote.location.on_pre_execute(deny_no)
        remote.location.guard(
            lambda execution: "guarded" if execution.arguments == {"text": "g"} else None
        )
        remote.location.on_post_execute(replace)
        denied = remote.call(remote_interpret, {"text": "no"})
        guarded = remote.call(remote_interpret, {"text": "g"})
        invalid = remote.call(remote_interpret, {"text": 3})
        allowed = remote.call(remote_interpret, {"text": "yes"})
        assert code_of(denied) is ErrorCode.DENIED
        assert code_of(guarded) is ErrorCode.DENIED
        assert code_of(invalid) is ErrorCode.INVALID_ARGS
        assert allowed.content == (TextBlock("replaced at home"),)
        assert isinstance(scripted, ScriptedRemote)
        assert [request.arguments for request in scripted.requests] == [{"text": "yes"}]

    def test_the_durable_records_are_written_by_the_caller(
        self, remote: Remote, remote_interpret: Interpret
    ) -> None:
        remote.register(lambda args, ctx: args["text"])
        records: list[SessionRecord] = []
        call = ToolCall("call-1", "t", {"text": "kept"}, remote.caller)
        result = remote_interpret(execute(remote.location.catalog(), call, records.append))
        assert [type(record) for record in records] == [ToolCallRecord, ToolResultRecord]
        assert records[1] == ToolResultRecord.of("call-1", result)

    def test_without_a_remote_runner_the_body_runs_here(
        self, interpreter_factory: InterpreterFactory
    ) -> None:
        location = Location()
        location.register(tool_t(lambda args, ctx: args["text"]))
        interpret = interpreter_factory(Host(unavailable, _ignore, ignore_progress)).run
        result = interpret(
            execute(location.catalog(), ToolCall("c", "t", {"text": "here"}, CancelSignal()))
        )
        assert result == ToolExecutionSuccess("here", (TextBlock("here"),))

    def test_a_remote_body_asks_no_one_and_its_progress_stays_on_the_worker(
        self, interpreter_factory: InterpreterFactory
    ) -> None:
        location = Location()
        shown: list[ProgressEvent] = []

        async def body(args: Args, ctx: ToolRunContext) -> str:
            ctx.report_progress(1)
            ask = ApprovalRequest(ctx.call_id, "t", None, "p", ("*",), None, None)
            return str(await ctx.runtime.approve(ask, ctx.signal))

        location.register(tool_t(body))
        runner = ScriptedRemote(location.get)
        here = Host(lambda request: "allowed-once", _ignore, shown.append)
        interpret = interpreter_factory(replace(here, remote=runner)).run
        call = ToolCall("c", "t", {"text": "x"}, CancelSignal())
        remotely = interpret(execute(location.catalog(), call))
        assert remotely == ToolExecutionSuccess("unavailable", (TextBlock("unavailable"),))
        assert shown == []  # though the caller would have allowed it and shown its progress
        here_result = interpreter_factory(here).run(execute(location.catalog(), call))
        assert here_result == ToolExecutionSuccess("allowed-once", (TextBlock("allowed-once"),))
        assert len(shown) == 1

    @pytest.mark.parametrize("kind", ["not a result", "not an outcome", "raises"])
    def test_a_runner_that_breaks_is_a_defect_of_the_body(
        self, remote: Remote, remote_interpret: Interpret, kind: str
    ) -> None:
        remote.runner = _Broken(kind)
        remote.register(lambda args, ctx: args["text"])
        result = remote.call(remote_interpret)
        assert code_of(result) is ErrorCode.UNEXPECTED_ERROR
        message = result.error.message  # type: ignore[union-attr]
        assert "the body of `t`" in message
        assert (
            "the cluster is unreachable" if kind == "raises" else "the remote runner"
        ) in message

    def test_a_remote_value_the_tool_here_would_not_give_is_invalid_output(
        self, remote: Remote, remote_interpret: Interpret
    ) -> None:
        remote.runner = _Broken("a wrong value")  # as from a worker with another version
        remote.register(lambda args, ctx: len(args["text"]), output=int)
        result = remote.call(remote_interpret)
        assert code_of(result) is ErrorCode.INVALID_TOOL_OUTPUT
        assert "Tool `t` returned an invalid value" in result.error.message  # type: ignore[union-attr]


class _Broken(RemoteRunner):
    """A runner that gives something other than an outcome, a result that is not one, a value
    the caller's tool would not give, or raises."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    async def run(
        self, request: RemoteRequest, signal: CancelSignal, runtime: Runtime
    ) -> RemoteOutcome:
        if self.kind == "raises":
            raise ConnectionError("the cluster is unreachable")
        if self.kind == "not an outcome":
            return "settled"  # type: ignore[return-value]
        if self.kind == "a wrong value":
            return RemoteSettled(ToolExecutionSuccess({"n": "two"}, (TextBlock("two"),)))
        return RemoteSettled("not a result")


def _ignore(error: BaseException, where: str) -> None:
    pass


class _Current(RemoteRunner):
    """The scenario's runner at the time of each call (a scenario may replace it)."""

    def __init__(self, remote: Remote) -> None:
        self.remote = remote

    async def run(
        self, request: RemoteRequest, signal: CancelSignal, runtime: Runtime
    ) -> RemoteOutcome:
        return await self.remote.runner.run(request, signal, runtime)
