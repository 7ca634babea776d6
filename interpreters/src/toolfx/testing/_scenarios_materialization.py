"""Every outcome frozen, JSON-safe and seen by every stage (issue 11, points 1 and 2).

Each scenario runs under the interpreter under test, with the pipeline scenarios' fixtures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import pytest
from returns.result import Failure

from toolfx.core.json import FrozenDict, FrozenList
from toolfx.core.pipeline import ToolCall, execute, execute_batch
from toolfx.core.records import SessionRecord, ToolResultRecord
from toolfx.core.runtime import Cancelled, CancelSignal
from toolfx.core.tools import (
    Accept,
    Block,
    ContextMessage,
    ErrorCode,
    ImageBlock,
    Output,
    PermissionDeclined,
    PostToolDecision,
    ReplaceContent,
    TextBlock,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolFailure,
    ToolRunContext,
    define_tool,
    text,
)
from toolfx.testing._host import Interpret
from toolfx.testing._scenarios_pipeline import (
    Args,
    PipelineWorld,
    World,
    code_of,
    register_shout,
    run,
)

__all__ = ["MaterializationScenarios"]


def replacing(result: ToolExecutionResult) -> Any:
    """An execute wrapper that ignores the body and returns `result`."""

    async def wrap(execution: ToolExecution, next_: Any) -> ToolExecutionResult:
        await next_(execution)
        return result

    return wrap


def failure_message(result: ToolExecutionResult) -> str:
    assert isinstance(result, ToolExecutionFailure), result
    return result.error.message


# Point 1: final materialization. --------------------------------------------------------------


# Point 2: every outcome through every stage. ----------------------------------------------------


def register_raising(world: World, **extra: Any) -> None:
    def body(args: Args, ctx: ToolRunContext) -> str:
        ctx.defer_context(ContextMessage(text("deferred"), "body"))
        raise ValueError("boom")

    world.location.register(
        define_tool(
            name="shout",
            description="d",
            parameters=Args,
            output=Output(str),
            execute=body,
            **extra,
        )
    )


# Point 3: the default renderer writes the checked JSON. ------------------------------------------


@dataclass(frozen=True)
class Inner:
    tags: tuple[str, ...]
    level: Literal["low", "high"]


@dataclass(frozen=True)
class Outer:
    name: str
    inner: Inner
    count: int | None = None


# Point 5: a decline cannot be swallowed, and still comes back as DENIED. --------------------------


class MaterializationScenarios(PipelineWorld):
    """Every outcome frozen, JSON-safe and seen by every stage."""

    def test_a_non_json_meta_is_a_failure_naming_the_field_and_path(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)
        world.location.wrap_execute(
            replacing(ToolExecutionSuccess("x", text("x"), {"a": [float("nan")]}))
        )
        result = run(world, interpret)
        assert code_of(result) is ErrorCode.INVALID_TOOL_OUTPUT
        assert "meta/a/0: nan is not a finite number" in failure_message(result)
        assert [r for _, r in world.observed] == [result]

    def test_what_a_hook_keeps_cannot_change_the_result(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)
        meta: dict[str, Any] = {"a": [1]}
        blocks = [TextBlock("kept")]
        context_meta: dict[str, Any] = {"b": {}}
        note = ContextMessage(blocks, "hook", context_meta)  # type: ignore[arg-type]  # a list

        async def post(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
            return ReplaceContent(blocks, (note,))  # type: ignore[arg-type]  # a list it keeps

        world.location.wrap_execute(replacing(ToolExecutionSuccess("x", text("x"), meta)))
        world.location.on_post_execute(post)
        result = run(world, interpret)
        meta["a"].append(2)
        blocks.append(TextBlock("added"))
        context_meta["b"]["c"] = 1
        assert isinstance(result, ToolExecutionSuccess)
        assert result.meta == {"a": [1]}
        assert type(result.meta) is FrozenDict
        assert result.content == (TextBlock("kept"),)
        assert type(result.content) is tuple
        (context,) = result.additional_contexts
        assert context.content == (TextBlock("kept"),)
        assert type(context.content) is tuple
        assert context.meta == {"b": {}}
        assert type(context.meta) is FrozenDict

    def test_a_context_with_a_lone_surrogate_is_named(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)
        bad = ContextMessage(text("\ud800"), "hook")

        async def post(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
            return Accept((ContextMessage(text("fine"), "hook"), bad))

        world.location.on_post_execute(post)
        result = run(world, interpret)
        assert code_of(result) is ErrorCode.INVALID_TOOL_OUTPUT
        assert "additional_contexts[1].content[0].text: holds a lone surrogate" in (
            failure_message(result)
        )

    def test_a_non_block_in_content_is_named_by_its_index(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)

        async def post(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
            return ReplaceContent((TextBlock("a"), {"type": "text"}))  # type: ignore[arg-type]

        world.location.on_post_execute(post)
        assert "content[1]: a dict, not a content block" in failure_message(run(world, interpret))

    def test_failure_details_are_snapshotted_or_named(
        self, world: World, interpret: Interpret
    ) -> None:
        details: dict[str, Any] = {"kept": [1]}

        def body(args: Args, ctx: ToolRunContext) -> Any:
            if args["text"] == "set":
                not_json: Any = {"x": {1, 2}}
                return Failure(ToolFailure.of(ErrorCode.TOOL_ERROR, "no", not_json))
            return Failure(ToolFailure.of(ErrorCode.TOOL_ERROR, "no", details))

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(str), execute=body
            )
        )
        kept = run(world, interpret)
        details["kept"].append(2)
        assert isinstance(kept, ToolExecutionFailure)
        assert kept.error.info.details == {"kept": [1]}
        assert type(kept.error.info.details) is FrozenDict
        named = run(world, interpret, {"text": "set"})
        assert "error.info.details/x: a value of type set is not JSON" in failure_message(named)

    def test_finalized_content_is_copied_and_checked(
        self, world: World, interpret: Interpret
    ) -> None:
        kept: list[Any] = [TextBlock("final")]

        def finalize(execution: Any, result: ToolExecutionResult) -> list[Any]:
            return kept

        register_shout(world, finalize_content=finalize)
        result = run(world, interpret)
        kept.append(TextBlock("later"))
        assert result.content == (TextBlock("final"),)
        kept[0] = ImageBlock("\udfff", "image/png")
        assert "content[0].data: holds a lone surrogate" in failure_message(run(world, interpret))

    def test_every_result_is_recorded_without_raising(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)
        world.location.wrap_execute(
            replacing(ToolExecutionSuccess("x", (TextBlock("\ud83d"),), {"big": 10**5000}))
        )
        records: list[SessionRecord] = []
        call = ToolCall("c", "shout", {"text": "hi"}, CancelSignal())
        result = interpret(execute(world.location.catalog(), call, records.append))
        wire = [record.to_json() for record in records]
        assert ToolResultRecord.from_json(wire[-1]).unwrap() == ToolResultRecord.of("c", result)

    def test_the_callers_arguments_are_snapshotted_when_the_call_is_built(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world, is_concurrency_safe=lambda args: True)
        arguments = {"text": "before"}
        single = execute(
            world.location.catalog(), ToolCall("c", "shout", arguments, CancelSignal())
        )
        calls = [ToolCall(f"c{i}", "shout", arguments, CancelSignal()) for i in range(2)]
        batch = execute_batch(world.location.catalog(), calls)
        arguments["text"] = "after"
        assert interpret(single) == ToolExecutionSuccess("BEFORE", text("BEFORE"))
        assert [r.value for r in interpret(batch).results] == ["BEFORE", "BEFORE"]

    def test_a_raising_body_reaches_wrappers_post_execute_and_finalize(
        self, world: World, interpret: Interpret
    ) -> None:
        finalized: list[ToolExecutionResult] = []

        def finalize(execution: Any, result: ToolExecutionResult) -> None:
            finalized.append(result)

        register_raising(world, finalize_content=finalize)
        wrapped: list[ToolExecutionResult] = []
        posted: list[ToolExecutionResult] = []

        async def wrap(execution: ToolExecution, next_: Any) -> ToolExecutionResult:
            result: ToolExecutionResult = await next_(execution)
            wrapped.append(result)
            return result

        async def post(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
            posted.append(result)
            decision: PostToolDecision = await next_()
            return decision

        world.location.wrap_execute(wrap)
        world.location.on_post_execute(post)
        result = run(world, interpret)
        assert code_of(result) is ErrorCode.UNEXPECTED_ERROR
        assert "the body of `shout` failed unexpectedly: ValueError: boom" in failure_message(
            result
        )
        for seen in (wrapped, posted, finalized):
            assert len(seen) == 1
            assert code_of(seen[0]) is ErrorCode.UNEXPECTED_ERROR
        assert result.additional_contexts == (ContextMessage(text("deferred"), "body"),)

    def test_a_defect_whose_text_is_not_json_or_not_printable_names_the_body(
        self, world: World, interpret: Interpret
    ) -> None:
        def body(args: Args, ctx: ToolRunContext) -> str:
            raise ValueError("\ud800" if args["text"] == "surrogate" else 10**5000)

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(str), execute=body
            )
        )
        for case, shown in (
            ("surrogate", "ValueError: \\ud800"),
            ("huge", "ValueError: <exception str() failed>"),
        ):
            result = run(world, interpret, {"text": case})
            assert code_of(result) is ErrorCode.UNEXPECTED_ERROR
            assert f"the body of `shout` failed unexpectedly: {shown}" in failure_message(result)
            ToolResultRecord.of("c", result).to_json()

    def test_a_raising_wrapper_is_a_result_for_the_outer_wrapper_and_post_execute(
        self, world: World, interpret: Interpret
    ) -> None:
        register_shout(world)
        seen: list[ToolExecutionResult] = []

        async def outer(execution: ToolExecution, next_: Any) -> ToolExecutionResult:
            result: ToolExecutionResult = await next_(execution)
            seen.append(result)
            return result

        async def inner(execution: ToolExecution, next_: Any) -> ToolExecutionResult:
            raise RuntimeError("wrapper broke")

        async def post(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
            seen.append(result)
            return Block(text("blocked after the wrapper broke"))

        world.location.wrap_execute(outer)
        world.location.wrap_execute(inner)
        world.location.on_post_execute(post)
        result = run(world, interpret)
        assert [code_of(r) for r in seen] == [ErrorCode.UNEXPECTED_ERROR] * 2
        assert "an execute wrapper of `shout` failed unexpectedly" in failure_message(seen[0])
        assert code_of(result) is ErrorCode.BLOCKED

    def test_deferred_contexts_ride_every_kind_of_failure(
        self, world: World, interpret: Interpret
    ) -> None:
        note = ContextMessage(text("deferred"), "body")

        async def body(args: Args, ctx: ToolRunContext) -> Any:
            ctx.defer_context(note)
            match args["text"]:
                case "typed":
                    return Failure(ToolFailure("typed"))
                case "defect":
                    raise KeyError("defect")
                case "invalid":
                    return 3
                case _:
                    await ctx.runtime.sleep(30, ctx.signal)
                    raise Cancelled("unreachable")

        world.location.register(
            define_tool(
                name="shout",
                description="d",
                parameters=Args,
                output=Output(str),
                execute=body,
                timeout=0.05,
            )
        )

        async def block(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
            if execution.arguments == {"text": "block"}:
                return Block(text("no"))
            decision: PostToolDecision = await next_()
            return decision

        world.location.on_post_execute(block)
        expected = {
            "typed": ErrorCode.TOOL_ERROR,
            "defect": ErrorCode.UNEXPECTED_ERROR,
            "invalid": ErrorCode.INVALID_TOOL_OUTPUT,
            "timeout": ErrorCode.TOOL_TIMEOUT,
            "block": ErrorCode.TOOL_TIMEOUT,  # blocked after the timeout: BLOCKED below
        }
        for case, code in expected.items():
            result = run(world, interpret, {"text": case})
            assert result.additional_contexts == (note,), case
            assert code_of(result) is (ErrorCode.BLOCKED if case == "block" else code), case

    def test_a_hand_built_result_is_frozen_too(self, world: World, interpret: Interpret) -> None:
        register_shout(world)
        value: dict[str, Any] = {"list": [1, 2]}
        world.location.wrap_execute(replacing(ToolExecutionSuccess(value, text("x"))))
        result = run(world, interpret)
        value["list"].append(3)
        assert isinstance(result, ToolExecutionSuccess)
        assert result.value == {"list": [1, 2]}
        assert type(result.value) is FrozenDict
        assert isinstance(result.value, dict)
        assert type(result.value["list"]) is FrozenList

    def test_a_nested_dataclass_output_renders_as_its_json(
        self, world: World, interpret: Interpret
    ) -> None:
        def body(args: Args, ctx: ToolRunContext) -> Outer:
            return Outer(args["text"], Inner(("a", "b"), "high"))

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(Outer), execute=body
            )
        )
        result = run(world, interpret)
        expected = '{"name":"hi","inner":{"tags":["a","b"],"level":"high"},"count":null}'
        assert result == ToolExecutionSuccess(
            {"name": "hi", "inner": {"tags": ["a", "b"], "level": "high"}, "count": None},
            text(expected),
        )

    def test_except_exception_in_a_body_cannot_swallow_a_decline(
        self, world: World, interpret: Interpret
    ) -> None:
        def body(args: Args, ctx: ToolRunContext) -> str:
            try:
                raise PermissionDeclined("edit", "the user said no")
            except Exception:  # a leaf's broad error handling never sees the decline
                return "swallowed"

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(str), execute=body
            )
        )
        result = run(world, interpret)
        assert code_of(result) is ErrorCode.DENIED
        assert "the user said no" in failure_message(result)

    def test_a_decline_in_a_gathered_thunk_or_a_blocking_body_is_denied(
        self, world: World, interpret: Interpret
    ) -> None:
        async def fine() -> int:
            return 1

        async def declined() -> int:
            raise PermissionDeclined("edit", "no from a thunk")

        async def gathering(args: Args, ctx: ToolRunContext) -> str:
            try:
                await ctx.runtime.gather([fine, declined, fine], 2)
            except Exception:
                return "swallowed"
            return "gathered"

        def blocking(args: Args, ctx: ToolRunContext) -> str:
            try:
                raise PermissionDeclined("edit", "no from a thread")
            except Exception:
                return "swallowed"

        for name, body, blocks in (("gather", gathering, False), ("blocking", blocking, True)):
            world.location.register(
                define_tool(
                    name=name,
                    description="d",
                    parameters=Args,
                    output=Output(str),
                    execute=body,
                    blocking=blocks,
                )
            )
        posted: list[ToolExecutionResult] = []

        async def post(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
            posted.append(result)
            decision: PostToolDecision = await next_()
            return decision

        world.location.on_post_execute(post)
        assert "no from a thunk" in failure_message(run(world, interpret, name="gather"))
        assert "no from a thread" in failure_message(run(world, interpret, name="blocking"))
        assert [code_of(r) for r in posted] == [ErrorCode.DENIED] * 2

    def test_an_interrupt_from_a_body_is_never_caught(
        self, world: World, interpret: Interpret
    ) -> None:
        def body(args: Args, ctx: ToolRunContext) -> str:
            raise KeyboardInterrupt

        world.location.register(
            define_tool(
                name="shout", description="d", parameters=Args, output=Output(str), execute=body
            )
        )
        with pytest.raises(KeyboardInterrupt):
            run(world, interpret)
