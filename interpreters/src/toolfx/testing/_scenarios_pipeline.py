"""Pipeline scenarios: one call or batch through every stage, the same under every interpreter.

`PipelineWorld` gives a scenario its `world` (a Location, an approval script, what was reported
and observed) and `interpret`, the `run` of the interpreter under test built around that world.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypedDict

import pytest
from returns.result import Failure, Result, Success

from toolfx.core.pipeline import (
    BatchResult,
    ToolCall,
    call,
    call_tool,
    described,
    execute,
    execute_batch,
)
from toolfx.core.records import SessionRecord, ToolCallRecord, ToolResultRecord
from toolfx.core.registry import Location
from toolfx.core.runtime import (
    NO_ONE_TO_ASK,
    ApprovalReply,
    ApprovalRequest,
    Cancelled,
    CancelSignal,
    Description,
    RejectedWithFeedback,
)
from toolfx.core.tools import (
    Accept,
    Allow,
    Ask,
    Block,
    ContextMessage,
    Deny,
    ErrorCode,
    ExecutionToken,
    Output,
    PermissionDeclined,
    PostToolDecision,
    PreToolDecision,
    ReplaceContent,
    ReplaceValue,
    TextBlock,
    ToolDefinition,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolFailure,
    ToolOptions,
    ToolRunContext,
    define_tool,
    text,
)
from toolfx.testing._host import Host, Interpret, InterpreterFactory, ignore_progress

__all__ = ["PipelineScenarios", "PipelineWorld", "World", "code_of"]


def interpret_batch(interpret: Interpret, description: Description[BatchResult]) -> BatchResult:
    """Run a batch description with the scenario's interpreter."""
    batch: BatchResult = interpret(description)
    return batch


@dataclass
class World:
    """A scenario's Location, approval script and what was reported or observed."""

    location: Location
    approvals: list[ApprovalReply]
    asked: list[ApprovalRequest]
    reported: list[str]
    observed: list[tuple[ToolExecution, ToolExecutionResult]]

    def approve(self, request: ApprovalRequest) -> ApprovalReply:
        self.asked.append(request)
        return self.approvals.pop(0) if self.approvals else "unavailable"


class Args(TypedDict):
    text: str


def shout(args: Args, ctx: ToolRunContext) -> str:
    return args["text"].upper()


@dataclass(frozen=True)
class Measured:
    """A typed output the pipeline keeps as JSON and a typed call gives back decoded."""

    text: str
    length: int


def measure(args: Args, ctx: ToolRunContext) -> Measured:
    return Measured(args["text"], len(args["text"]))


def register_measure(world: World) -> ToolDefinition[Args, Measured]:
    tool = define_tool(
        name="measure", description="d", parameters=Args, output=Output(Measured), execute=measure
    )
    world.location.register(tool)
    return tool


def register_shout(world: World, name: str = "shout", **extra: Any) -> None:
    world.location.register(
        define_tool(
            name=name,
            description="Upper-case a text",
            parameters=Args,
            output=Output(str),
            execute=shout,
            **extra,
        )
    )


def run(
    world: World,
    interpret: Interpret,
    arguments: object = None,
    *,
    name: str = "shout",
    scope: str | None = None,
    signal: CancelSignal | None = None,
) -> ToolExecutionResult:
    call = ToolCall(
        "call-1",
        name,
        {"text": "hi"} if arguments is None else arguments,
        signal or CancelSignal(),
    )
    result: ToolExecutionResult = interpret(execute(world.location.catalog(scope), call))
    return result


def code_of(result: ToolExecutionResult) -> ErrorCode:
    assert isinstance(result, ToolExecutionFailure), result
    return result.error.code


def ask_loudly(world: World, interpret: Interpret, reply: ApprovalReply) -> ToolExecutionResult:
    """Call `shout` as an agent under a policy that asks, answered with `reply`."""
    register_shout(world)
    world.location.add_scope("agent")

    async def ask(execution: ToolExecution, next_: Any) -> PreToolDecision:
        return Ask("shouting is loud")

    world.location.on_pre_execute(ask)
    world.approvals.append(reply)
    return run(world, interpret, scope="agent")


def register_safe_tools(world: World) -> None:
    """`read` is parallel-safe, `write` is exclusive; both defer a context naming the call."""

    def body(args: Args, ctx: ToolRunContext) -> str:
        ctx.defer_context(ContextMessage(text(ctx.call_id), source="test"))
        return ctx.call_id

    for name, safe in (("read", True), ("write", False)):
        world.location.register(
            define_tool(
                name=name,
                description=name,
                parameters=Args,
                output=Output(str),
                execute=body,
                is_concurrency_safe=(lambda args: True) if safe else None,
            )
        )


def batch_calls(*names: str) -> list[ToolCall]:
    return [ToolCall(f"c{i}", name, {"text": ""}, CancelSignal()) for i, name in enumerate(names)]


class PipelineWorld:
    """The `world` and `interpret` fixtures of the pipeline and materialization scenarios."""

    @pytest.fixture
    def world(self) -> World:
        """A fresh Location whose results the world observes, and no approval replies yet."""
        location = Location()
        state = World(location, [], [], [], [])
        location.on_result(lambda execution, result: state.observed.append((execution, result)))
        return state

    @pytest.fixture
    def interpret(self, world: World, interpreter_factory: InterpreterFactory) -> Interpret:
        """The `run` of the interpreter under test: `world` answers approvals and keeps where
        each defect was reported."""

        def report(error: BaseException, where: str) -> None:
            world.reported.append(where)

        return interpreter_factory(Host(world.approve, report, ignore_progress)).run


class PipelineScenarios(PipelineWorld):
    """The pipeline scenarios: one call or batch through every stage."""

    def test_a_plain_call_succeeds_with_value_and_rendered_content(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)
        result = run(world, interpret)
        assert result == ToolExecutionSuccess("HI", (TextBlock("HI"),))
        assert [r for _, r in world.observed] == [result]

    def test_non_json_arguments_are_invalid_args(self, world: World, interpret: Interpret) -> None:
        register_shout(world)
        assert code_of(run(world, interpret, {"text": float("nan")})) is ErrorCode.INVALID_ARGS

    def test_unknown_tool_lists_what_is_available(self, world: World, interpret: Interpret) -> None:
        register_shout(world)
        result = run(world, interpret, name="whisper")
        assert code_of(result) is ErrorCode.UNKNOWN_TOOL
        assert isinstance(result, ToolExecutionFailure)
        assert "shout" in result.error.message

    def test_invalid_arguments_tell_the_model_what_to_fix(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)
        result = run(world, interpret, {"text": 3})
        assert code_of(result) is ErrorCode.INVALID_ARGS
        assert isinstance(result, ToolExecutionFailure)
        assert "/text: expected string" in result.error.message

    def test_invalid_output_is_invalid_tool_output(
        self, world: World, interpret: Interpret
    ) -> None:
        world.location.register(
            define_tool(
                name="shout",
                description="d",
                parameters=Args,
                output=Output(int),
                execute=lambda args, ctx: args["text"],
            )
        )
        assert code_of(run(world, interpret)) is ErrorCode.INVALID_TOOL_OUTPUT

    def test_a_typed_failure_keeps_its_code_and_message(
        self, world: World, interpret: Interpret
    ) -> None:
        def refuse(args: Args, ctx: ToolRunContext) -> Result[str, ToolFailure]:
            return Failure(ToolFailure("nothing to shout"))

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(str), execute=refuse
            )
        )
        result = run(world, interpret)
        assert code_of(result) is ErrorCode.TOOL_ERROR
        assert result.content == (TextBlock("nothing to shout"),)

    def test_a_raising_body_is_a_contained_defect(self, world: World, interpret: Interpret) -> None:
        def explode(args: Args, ctx: ToolRunContext) -> str:
            raise RuntimeError("boom")

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(str), execute=explode
            )
        )
        result = run(world, interpret)
        assert code_of(result) is ErrorCode.UNEXPECTED_ERROR
        assert isinstance(result, ToolExecutionFailure)
        assert "RuntimeError: boom" in result.error.message
        assert world.observed[0][1] is result

    def test_async_bodies_and_result_successes(self, world: World, interpret: Interpret) -> None:
        async def body(args: Args, ctx: ToolRunContext) -> Result[str, ToolFailure]:
            return Success(args["text"] + "!")

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(str), execute=body
            )
        )
        assert run(world, interpret) == ToolExecutionSuccess("hi!", (TextBlock("hi!"),))

    def test_pre_execute_deny(self, world: World, interpret: Interpret) -> None:
        register_shout(world)

        async def deny(execution: ToolExecution, next_: Any) -> PreToolDecision:
            return Deny("not today")

        world.location.on_pre_execute(deny)
        result = run(world, interpret)
        assert code_of(result) is ErrorCode.DENIED
        assert isinstance(result, ToolExecutionFailure)
        assert "not today" in result.error.message

    def test_pre_execute_next_delegates_to_the_later_listeners(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)
        seen: list[str] = []

        async def first(execution: ToolExecution, next_: Any) -> PreToolDecision:
            seen.append("first")
            decision: PreToolDecision = await next_()
            return decision

        async def second(execution: ToolExecution, next_: Any) -> PreToolDecision:
            seen.append("second")
            return Deny("second says no")

        world.location.on_pre_execute(first)
        world.location.on_pre_execute(second)
        assert code_of(run(world, interpret)) is ErrorCode.DENIED
        assert seen == ["first", "second"]

    @pytest.mark.parametrize(
        ("reply", "allowed"),
        [
            ("allowed-once", True),
            ("allowed-always", True),
            ("rejected", False),
            ("cancelled", False),
            ("unavailable", False),
        ],
    )
    def test_ask_runs_only_when_allowed(
        self, world: World, interpret: Interpret, reply: ApprovalReply, allowed: bool
    ) -> None:
        # the policy's ask offers no rules to remember (`always` is empty): always counts as once
        result = ask_loudly(world, interpret, reply)
        assert isinstance(result, ToolExecutionSuccess) is allowed
        assert world.asked[0].reason == "shouting is loud"
        assert world.asked[0].agent == "agent"
        assert world.asked[0].always == ()

    def test_a_rejection_with_feedback_denies_and_tells_the_model_why(
        self, world: World, interpret: Interpret
    ) -> None:
        result = ask_loudly(world, interpret, RejectedWithFeedback("whisper instead"))
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.code is ErrorCode.DENIED
        assert result.error.message == "Denied (shouting is loud); the user said: whisper instead"

    def test_an_ask_no_one_could_answer_tells_the_model_so_not_a_rejection(
        self, world: World, interpret: Interpret
    ) -> None:
        result = ask_loudly(world, interpret, "unavailable")
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.code is ErrorCode.DENIED
        assert result.error.message == (
            f"Denied: no one could approve this call (shouting is loud): {NO_ONE_TO_ASK}"
        )

    def test_ask_without_an_agent_is_denied(self, world: World, interpret: Interpret) -> None:
        register_shout(world)

        async def ask(execution: ToolExecution, next_: Any) -> PreToolDecision:
            return Ask()

        world.location.on_pre_execute(ask)
        assert code_of(run(world, interpret)) is ErrorCode.DENIED
        assert world.asked == []

    def test_a_guard_denies_and_no_listener_can_allow_it_back(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)

        async def allow(execution: ToolExecution, next_: Any) -> PreToolDecision:
            return Allow()

        world.location.on_pre_execute(allow)
        world.location.guard(lambda execution: "guarded")
        result = run(world, interpret)
        assert code_of(result) is ErrorCode.DENIED
        assert isinstance(result, ToolExecutionFailure)
        assert "guarded" in result.error.message

    def test_execute_wrappers_wrap_the_body_in_order(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)
        order: list[str] = []

        def wrapper(label: str) -> Any:
            async def wrap(execution: ToolExecution, next_: Any) -> ToolExecutionResult:
                order.append(f"{label} in")
                result: ToolExecutionResult = await next_(execution)
                order.append(f"{label} out")
                return result

            return wrap

        world.location.wrap_execute(wrapper("outer"))
        world.location.wrap_execute(wrapper("inner"))
        assert isinstance(run(world, interpret), ToolExecutionSuccess)
        assert order == ["outer in", "inner in", "inner out", "outer out"]

    def test_a_wrapper_signal_cannot_detach_the_callers(
        self, world: World, interpret: Interpret
    ) -> None:
        seen: list[bool] = []

        def body(args: Args, ctx: ToolRunContext) -> str:
            seen.append(ctx.signal.is_cancelled())
            return "x"

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(str), execute=body
            )
        )
        caller = CancelSignal()

        async def replace(execution: ToolExecution, next_: Any) -> ToolExecutionResult:
            caller.cancel("caller gave up")
            result: ToolExecutionResult = await next_(execution.with_signal(CancelSignal()))
            return result

        world.location.wrap_execute(replace)
        assert code_of(run(world, interpret, signal=caller)) is ErrorCode.ABORTED_BEFORE_DISPATCH
        assert seen == []

    def test_post_execute_replaces_content_but_keeps_the_value(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)

        async def quiet(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
            return ReplaceContent(text("(quiet)"))

        world.location.on_post_execute(quiet)
        assert run(world, interpret) == ToolExecutionSuccess("HI", (TextBlock("(quiet)"),))

    def test_post_execute_replaces_the_value_and_renders_it_again(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)

        async def other(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
            return ReplaceValue("HELLO")

        world.location.on_post_execute(other)
        assert run(world, interpret) == ToolExecutionSuccess("HELLO", (TextBlock("HELLO"),))

    def test_post_execute_value_is_validated(self, world: World, interpret: Interpret) -> None:
        register_shout(world)

        async def bad(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
            return ReplaceValue(42)

        world.location.on_post_execute(bad)
        assert code_of(run(world, interpret)) is ErrorCode.INVALID_TOOL_OUTPUT

    def test_post_execute_block_drops_the_value(self, world: World, interpret: Interpret) -> None:
        register_shout(world)
        note = ContextMessage(text("remember"), source="policy")

        async def block(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
            return Block(text("do not shout"), (note,))

        world.location.on_post_execute(block)
        result = run(world, interpret)
        assert code_of(result) is ErrorCode.BLOCKED
        assert result.content == (TextBlock("do not shout"),)
        assert result.additional_contexts == (note,)

    def test_post_execute_accept_attaches_contexts(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)
        note = ContextMessage(text("fyi"), source="policy")

        async def accept(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
            return Accept((note,))

        world.location.on_post_execute(accept)
        result = run(world, interpret)
        assert isinstance(result, ToolExecutionSuccess)
        assert result.additional_contexts == (note,)

    def test_a_raising_listener_never_loses_the_result(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)

        async def broken(execution: ToolExecution, next_: Any) -> PreToolDecision:
            raise ValueError("listener bug")

        world.location.on_pre_execute(broken)
        result = run(world, interpret)
        assert code_of(result) is ErrorCode.UNEXPECTED_ERROR
        assert len(world.observed) == 1

    def test_raising_observers_are_reported_and_the_others_still_run(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)

        def broken(execution: ToolExecution, result: ToolExecutionResult) -> None:
            raise RuntimeError("observer bug")

        world.location.on_result(broken)
        assert isinstance(run(world, interpret), ToolExecutionSuccess)
        assert len(world.observed) == 1
        assert len(world.reported) == 1

    def test_finalize_content_runs_once_for_every_outcome(
        self, world: World, interpret: Interpret
    ) -> None:
        calls: list[bool] = []

        def finalize(execution: Any, result: ToolExecutionResult) -> tuple[TextBlock, ...]:
            calls.append(result.is_error)
            return (TextBlock("final"),)

        register_shout(world, finalize_content=finalize)
        assert run(world, interpret).content == (TextBlock("final"),)
        assert run(world, interpret, {"text": 1}).content == (TextBlock("final"),)
        assert calls == [False, True]

    def test_cancelled_before_dispatch(self, world: World, interpret: Interpret) -> None:
        register_shout(world)
        signal = CancelSignal()
        signal.cancel()
        assert code_of(run(world, interpret, signal=signal)) is ErrorCode.ABORTED_BEFORE_DISPATCH

    def test_cancelled_after_a_started_successful_body(
        self, world: World, interpret: Interpret
    ) -> None:
        signal = CancelSignal()

        def body(args: Args, ctx: ToolRunContext) -> str:
            signal.cancel()
            return "done"

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(str), execute=body
            )
        )
        assert code_of(run(world, interpret, signal=signal)) is ErrorCode.ABORTED

    def test_a_tool_owned_error_survives_cancellation(
        self, world: World, interpret: Interpret
    ) -> None:
        signal = CancelSignal()

        def body(args: Args, ctx: ToolRunContext) -> Result[str, ToolFailure]:
            signal.cancel()
            return Failure(ToolFailure("partial write"))

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(str), execute=body
            )
        )
        assert code_of(run(world, interpret, signal=signal)) is ErrorCode.TOOL_ERROR

    def test_a_timeout_sets_the_bodys_signal_and_fails_with_tool_timeout(
        self, world: World, interpret: Interpret
    ) -> None:
        async def slow(args: Args, ctx: ToolRunContext) -> str:
            try:
                await ctx.runtime.sleep(30, ctx.signal)
            except Cancelled:
                return "stopped"
            return "slept"

        world.location.register(
            define_tool(
                name="shout",
                description="d",
                parameters=Args,
                output=Output(str),
                execute=slow,
                timeout=0.05,
            )
        )
        assert code_of(run(world, interpret)) is ErrorCode.TOOL_TIMEOUT

    @pytest.mark.parametrize("replacing", [False, True], ids=["timeout only", "signal replaced"])
    def test_a_caller_cancel_reaches_a_timed_body_through_any_wrapper(
        self, world: World, interpret: Interpret, replacing: bool
    ) -> None:
        signal = CancelSignal()
        seen: list[tuple[bool, str | None]] = []

        def body(args: Args, ctx: ToolRunContext) -> str:
            signal.cancel("stop")
            seen.append((ctx.signal.is_cancelled(), ctx.signal.reason))
            return "done"

        async def replace(
            execution: ToolExecution,
            next_: Callable[[ToolExecution], Awaitable[ToolExecutionResult]],
        ) -> ToolExecutionResult:
            return await next_(execution.with_signal(CancelSignal()))

        world.location.register(
            define_tool(
                name="shout",
                description="d",
                parameters=Args,
                output=Output(str),
                execute=body,
                timeout=30,
            )
        )
        if replacing:
            world.location.wrap_execute(replace)
        assert code_of(run(world, interpret, signal=signal)) is ErrorCode.ABORTED
        assert seen == [(True, "stop")]

    def test_deferred_contexts_and_conclude_turn_ride_the_result(
        self, world: World, interpret: Interpret
    ) -> None:
        note = ContextMessage(text("later"), source="shout")

        def body(args: Args, ctx: ToolRunContext) -> str:
            ctx.defer_context(note)
            ctx.conclude_turn()
            return "ok"

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(str), execute=body
            )
        )
        result = run(world, interpret)
        assert isinstance(result, ToolExecutionSuccess)
        assert result.additional_contexts == (note,)
        assert result.concludes_turn is True

    def test_presentation_meta_for_top_level_calls(
        self, world: World, interpret: Interpret
    ) -> None:
        world.location.register(
            define_tool(
                name="shout",
                description="d",
                parameters=Args,
                output=Output(str, presentation_meta=lambda args, value: {"chars": len(value)}),
                execute=shout,
            )
        )
        result = run(world, interpret)
        assert result.meta == {"chars": 2}

    def test_a_batch_keeps_the_models_order_and_defers_contexts(
        self, world: World, interpret: Interpret
    ) -> None:
        register_safe_tools(world)
        calls = batch_calls("read", "read", "write", "read")
        batch = interpret_batch(interpret, execute_batch(world.location.catalog(), calls, limit=2))
        assert [r.value for r in batch.results if isinstance(r, ToolExecutionSuccess)] == [
            "c0",
            "c1",
            "c2",
            "c3",
        ]
        assert [c.content for c in batch.additional_contexts] == [text(f"c{i}") for i in range(4)]
        assert batch.concludes_turn is False
        assert len(world.observed) == 4

    def test_calls_compose_in_returns_shape(self, world: World, interpret: Interpret) -> None:
        register_shout(world)
        catalog = world.location.catalog()
        first = call_tool(catalog, ToolCall("c1", "shout", {"text": "ab"}, CancelSignal()))
        chained = first.bind(
            lambda value: call_tool(
                catalog, ToolCall("c2", "shout", {"text": f"{value}!"}, CancelSignal())
            )
        )
        assert interpret(described(chained)) == Success("AB!")
        failing = first.bind(
            lambda _: call_tool(catalog, ToolCall("c3", "nope", {}, CancelSignal()))
        )
        outcome = interpret(described(failing))
        assert isinstance(outcome, Failure)
        assert outcome.failure().code is ErrorCode.UNKNOWN_TOOL

    def test_a_typed_call_gives_the_decoded_output(
        self, world: World, interpret: Interpret
    ) -> None:
        tool = register_measure(world)
        catalog = world.location.catalog()
        outcome = interpret(described(call(catalog, tool, call_id="c1")({"text": "abc"})))
        assert outcome == Success(Measured("abc", 3))
        [(execution, result)] = world.observed  # through the pipeline: observers saw the call
        assert execution.call_id == "c1"
        assert isinstance(result, ToolExecutionSuccess)
        assert result.value == {
            "text": "abc",
            "length": 3,
        }  # the canonical JSON; the call decodes it

    def test_typed_calls_compose_with_bind(self, world: World, interpret: Interpret) -> None:
        tool = register_measure(world)
        catalog = world.location.catalog()
        first = call(catalog, tool, call_id="c1")({"text": "ab"})
        chained = first.map(lambda measured: Args(text=measured.text * measured.length)).bind(
            call(catalog, tool, call_id="c2")
        )
        assert interpret(described(chained)) == Success(Measured("abab", 4))

    def test_a_typed_call_sends_dataclass_arguments_as_their_json(
        self, world: World, interpret: Interpret
    ) -> None:
        def double(args: Measured, ctx: ToolRunContext) -> int:
            return args.length * 2

        tool = define_tool(
            name="double", description="d", parameters=Measured, output=Output(int), execute=double
        )
        world.location.register(tool)
        typed = call(world.location.catalog(), tool, call_id="c1")(Measured("ab", 2))
        assert interpret(described(typed)) == Success(4)
        [(execution, _)] = world.observed
        assert execution.arguments == {"text": "ab", "length": 2}

    def test_a_typed_call_meets_the_policies_and_the_validation(
        self, world: World, interpret: Interpret
    ) -> None:
        tool = register_measure(world)

        async def deny(execution: ToolExecution, next_: Any) -> PreToolDecision:
            return Deny("not from code") if execution.arguments == {"text": "no"} else Allow()

        world.location.on_pre_execute(deny)
        catalog = world.location.catalog()
        denied = interpret(described(call(catalog, tool, call_id="c1")({"text": "no"})))
        invalid = interpret(described(call(catalog, tool, call_id="c2")({"text": 3})))  # type: ignore[typeddict-item]
        assert isinstance(denied, Failure)
        assert denied.failure().code is ErrorCode.DENIED
        assert isinstance(invalid, Failure)
        assert invalid.failure().code is ErrorCode.INVALID_ARGS
        assert [execution.call_id for execution, _ in world.observed] == ["c1", "c2"]

    def test_a_typed_call_of_a_definition_the_catalog_does_not_show_runs_nothing(
        self, world: World, interpret: Interpret
    ) -> None:
        register_measure(world)
        other = define_tool(
            name="measure",
            description="d",
            parameters=Args,
            output=Output(Measured),
            execute=measure,
        )
        outcome = interpret(
            described(call(world.location.catalog(), other, call_id="c1")({"text": "a"}))
        )
        assert isinstance(outcome, Failure)
        assert outcome.failure().code is ErrorCode.UNKNOWN_TOOL
        assert world.observed == []

    def test_a_permission_decline_resurfaces_as_denied(
        self, world: World, interpret: Interpret
    ) -> None:
        def body(args: Args, ctx: ToolRunContext) -> str:
            try:
                raise PermissionDeclined("edit", "the user said no")
            except ValueError:  # a leaf's own error handling never sees the decline
                return "swallowed"

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(str), execute=body
            )
        )
        result = run(world, interpret)
        assert code_of(result) is ErrorCode.DENIED
        assert isinstance(result, ToolExecutionFailure)
        assert "the user said no" in result.error.message

    def test_a_defect_names_the_stage_it_came_from(
        self, world: World, interpret: Interpret
    ) -> None:
        def body(args: Args, ctx: ToolRunContext) -> str:
            raise KeyError("missing")

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(str), execute=body
            )
        )
        result = run(world, interpret)
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.message.startswith("the body of `shout` failed unexpectedly: KeyError")
        assert isinstance(result.error.info.details, dict)
        assert "Traceback" in str(result.error.info.details["traceback"])

    def test_durable_events_come_in_order_without_the_value(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)
        records: list[SessionRecord] = []
        call = ToolCall("c1", "shout", {"text": "hi"}, CancelSignal())
        interpret(execute(world.location.catalog(), call, records.append))
        assert [r.event for r in records] == ["tool/call", "tool/result"]
        call_record, result_record = records
        assert isinstance(call_record, ToolCallRecord)
        assert call_record.arguments == {"text": "hi"}
        assert isinstance(result_record, ToolResultRecord)
        assert result_record.result.content == (TextBlock("HI"),)
        assert "value" not in str(result_record.to_json())

    def test_a_tool_hidden_from_the_scope_is_unknown_there(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)
        world.location.add_scope("agent")
        world.location.restrict("agent", deny=["shout"])
        assert code_of(run(world, interpret, scope="agent")) is ErrorCode.UNKNOWN_TOOL
        assert isinstance(run(world, interpret), ToolExecutionSuccess)

    def test_agent_scoped_listeners_see_only_that_agents_calls(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)
        world.location.add_scope("agent")
        world.location.add_scope("other")

        async def deny(execution: ToolExecution, next_: Any) -> PreToolDecision:
            return Deny("agent-only policy")

        world.location.on_pre_execute(deny, "agent")
        assert code_of(run(world, interpret, scope="agent")) is ErrorCode.DENIED
        assert isinstance(run(world, interpret, scope="other"), ToolExecutionSuccess)
        assert isinstance(run(world, interpret), ToolExecutionSuccess)

    def test_a_wrapper_may_retry_the_body(self, world: World, interpret: Interpret) -> None:
        attempts: list[int] = []

        def flaky(args: Args, ctx: ToolRunContext) -> Result[str, ToolFailure]:
            attempts.append(1)
            return Failure(ToolFailure("try again")) if len(attempts) < 3 else Success("third time")

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(str), execute=flaky
            )
        )

        async def retry(execution: ToolExecution, next_: Any) -> ToolExecutionResult:
            result: ToolExecutionResult = await next_(execution)
            while result.is_error and len(attempts) < 3:
                result = await next_(execution)
            return result

        world.location.wrap_execute(retry)
        assert run(world, interpret) == ToolExecutionSuccess(
            "third time", (TextBlock("third time"),)
        )
        assert len(attempts) == 3

    def test_a_blocking_plain_body_runs_through_run_blocking(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world, blocking=True)
        assert run(world, interpret) == ToolExecutionSuccess("HI", (TextBlock("HI"),))

    def test_a_raising_guard_fails_the_call_and_names_the_stage(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)

        def broken(execution: ToolExecution) -> str | None:
            raise LookupError("guard bug")

        world.location.guard(broken)
        result = run(world, interpret)
        assert code_of(result) is ErrorCode.UNEXPECTED_ERROR
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.message.startswith("a guard of `shout` failed unexpectedly")

    def test_code_mode_hides_code_tools_from_model_direct_calls(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)
        register_shout(world, "native", options=ToolOptions(codemode=False))  # on the native list
        world.location.add_scope("coder")
        world.location.present_as("coder", "code")
        direct = run(world, interpret, scope="coder")
        assert code_of(direct) is ErrorCode.UNKNOWN_TOOL
        assert isinstance(direct, ToolExecutionFailure)
        assert direct.error.message == "Unknown tool `shout`. Available tools: native, run_code."
        assert world.observed[-1][1] == direct  # the refusal is still one observed result
        assert isinstance(run(world, interpret, name="native", scope="coder"), ToolExecutionSuccess)
        through_transport = ToolCall(
            "call-2", "shout", {"text": "hi"}, CancelSignal(), parent=ExecutionToken()
        )
        catalog = world.location.catalog("coder")
        assert interpret(execute(catalog, through_transport)) == ToolExecutionSuccess(
            "HI", (TextBlock("HI"),)
        )
        assert isinstance(run(world, interpret), ToolExecutionSuccess)  # native presentation
