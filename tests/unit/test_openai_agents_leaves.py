"""Agents SDK function tools registered in a Location, each call through toolfx's pipeline."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio
import pytest
from agents import (
    FunctionTool,
    RunContextWrapper,
    ToolOutputFileContent,
    ToolOutputImage,
    ToolOutputText,
    function_tool,
)
from agents.tool import default_tool_error_function
from agents.tool_context import ToolContext

from toolfx.core import (
    CancelSignal,
    ErrorCode,
    ImageBlock,
    Location,
    TextBlock,
    ToolCall,
    ToolExecutionFailure,
    ToolExecutionSuccess,
    execute,
)
from toolfx.interpreters import AnyioRuntime, run_anyio
from toolfx.leaves.openai_agents import definitions, register

if TYPE_CHECKING:
    from toolfx.core import ApprovalReply, ApprovalRequest, ToolExecution, ToolExecutionResult

ran: list[str] = []


@function_tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    ran.append("add")
    return a + b


@function_tool(failure_error_function=None)
def explode(reason: str) -> str:
    """Fail on purpose."""
    raise ValueError(f"boom: {reason}")


@function_tool
def whoami(ctx: RunContextWrapper[str]) -> str:
    """Say whose run this is."""
    return f"run of {ctx.context}"


@function_tool
def picture() -> list[ToolOutputText | ToolOutputImage]:
    """Draw."""
    return [ToolOutputText(text="a dot"), ToolOutputImage(image_url="data:image/png;base64,AAAA")]


@function_tool(needs_approval=True)
def launch() -> str:
    """Launch something that needs a human's yes."""
    ran.append("launch")
    return "launched"


def _call(
    location: Location, name: str, arguments: dict[str, Any], reply: ApprovalReply = "rejected"
) -> ToolExecutionResult:
    call = ToolCall(f"{name}-1", name, arguments, CancelSignal())
    runtime = AnyioRuntime(lambda request: reply)
    return run_anyio(execute(location.catalog(), call), "asyncio", runtime)


@pytest.fixture
def location() -> Location:
    ran.clear()
    location = Location()
    register(location, [add, explode, picture, launch])
    register(location, [whoami], namespace="sdk", context="alice")
    return location


def test_a_success_has_the_tool_s_value_and_text(location: Location) -> None:
    result = _call(location, "add", {"a": 1, "b": 2})
    assert isinstance(result, ToolExecutionSuccess)
    assert (result.value, result.content) == (3, (TextBlock("3"),))
    assert ran == ["add"]


def test_toolfx_validates_before_the_sdk_tool_runs(location: Location) -> None:
    result = _call(location, "add", {"a": "one"})
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is ErrorCode.INVALID_ARGS
    assert "/a: expected integer" in result.error.message
    assert ran == []


def test_a_guard_denies_before_the_sdk_tool_runs(location: Location) -> None:
    def guard(execution: ToolExecution) -> str | None:
        return "adding is paused" if execution.name == "add" else None

    location.guard(guard)
    result = _call(location, "add", {"a": 1, "b": 2})
    assert isinstance(result, ToolExecutionFailure)
    assert (result.error.code, result.error.message) == (
        ErrorCode.DENIED,
        "Denied: adding is paused",
    )
    assert ran == []


@function_tool
def crash(x: int) -> str:
    """Fail on purpose, with the SDK's default failure_error_function."""
    raise RuntimeError(f"kaboom {x}")


def _told(context: RunContextWrapper[Any], error: Exception) -> str:
    return f"told: {error}"


async def _by_hand(context: ToolContext[Any], arguments: str) -> str:
    raise KeyError(arguments)


by_hand = FunctionTool(
    name="by_hand",
    description="A function tool built by hand",
    params_json_schema={"type": "object", "properties": {}, "additionalProperties": False},
    on_invoke_tool=_by_hand,
)


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        (crash, {"x": 1}, "RuntimeError: kaboom 1"),
        (
            function_tool(crash.__wrapped__, name_override="told", failure_error_function=_told),
            {"x": 2},
            "RuntimeError: kaboom 2",
        ),
        (explode, {"reason": "on purpose"}, "ValueError: boom: on purpose"),
        (by_hand, {}, "KeyError: '{}'"),
    ],
    ids=["default", "custom", "none", "by-hand"],
)
def test_what_the_sdk_tool_raises_is_a_tool_error_naming_it(
    tool: FunctionTool, arguments: dict[str, Any], message: str
) -> None:
    location = Location()
    register(location, [tool])
    result = _call(location, tool.name, arguments)
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is ErrorCode.TOOL_ERROR
    assert result.error.message == f"The Agents SDK tool `{tool.name}` failed: {message}"


class _Counting(FunctionTool):
    """A subclass whose invoker is its own method, reading and writing the tool's state."""

    def __init__(self) -> None:
        super().__init__(
            name="counting",
            description="Count, then fail",
            params_json_schema={"type": "object", "properties": {}, "additionalProperties": False},
            on_invoke_tool=self._count,
        )
        self.calls = 0

    async def _count(self, context: ToolContext[Any], arguments: str) -> str:
        self.calls += 1
        raise OSError(f"failed on call {self.calls}")


def test_a_subclass_s_own_invoker_runs_on_the_user_s_tool() -> None:
    counting = _Counting()
    location = Location()
    register(location, [counting])
    for n in (1, 2):
        result = _call(location, "counting", {})
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.code is ErrorCode.TOOL_ERROR
        assert result.error.message.endswith(f"failed: OSError: failed on call {n}")
    assert counting.calls == 2


def test_the_user_s_tool_keeps_its_own_failure_policy() -> None:
    register(Location(), [crash])
    context = ToolContext(None, tool_name="crash", tool_call_id="c", tool_arguments='{"x": 1}')
    told = anyio.run(crash.on_invoke_tool, context, '{"x": 1}')
    assert told == default_tool_error_function(context, RuntimeError())


def test_an_approval_the_runtime_cancels_ends_the_call_aborted(location: Location) -> None:
    result = _call(location, "launch", {}, reply="cancelled")
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is ErrorCode.ABORTED
    assert ran == []


def test_the_run_context_given_at_registration_reaches_the_tool(location: Location) -> None:
    result = _call(location, "sdk_whoami", {})
    assert isinstance(result, ToolExecutionSuccess)
    assert result.content == (TextBlock("run of alice"),)


def test_structured_outputs_become_content_blocks(location: Location) -> None:
    result = _call(location, "picture", {})
    assert isinstance(result, ToolExecutionSuccess)
    assert result.content == (TextBlock("a dot"), ImageBlock("AAAA", "image/png"))


@pytest.mark.parametrize(("reply", "outcome"), [("allowed-once", "launched"), ("rejected", None)])
def test_needs_approval_asks_the_runtime_s_approvals(
    location: Location, reply: ApprovalReply, outcome: str | None
) -> None:
    asked: list[ApprovalRequest] = []

    def approvals(request: ApprovalRequest) -> ApprovalReply:
        asked.append(request)
        return reply

    call = ToolCall("l1", "launch", {}, CancelSignal())
    result = run_anyio(execute(location.catalog(), call), "asyncio", AnyioRuntime(approvals))
    assert [(request.permission, request.call_id) for request in asked] == [("launch", "l1")]
    if outcome is None:
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.code is ErrorCode.DENIED
        assert ran == []
    else:
        assert isinstance(result, ToolExecutionSuccess)
        assert result.content == (TextBlock(outcome),)
        assert ran == ["launch"]


def test_a_schema_toolfx_cannot_enforce_is_refused_naming_the_tool() -> None:
    async def invoke(ctx: object, arguments: str) -> str:
        return arguments

    odd = FunctionTool(
        name="odd",
        description="An odd schema",
        params_json_schema={"type": "object", "properties": {"x": {"format": "made-up"}}},
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )
    with pytest.raises(ValueError, match="the Agents SDK tool 'odd' has a schema toolfx cannot"):
        definitions([odd])


def test_register_gives_one_disposer_for_all(location: Location) -> None:
    remove = register(location, [add], namespace="more")
    assert location.get("more_add") is not None
    remove()
    assert location.get("more_add") is None
    assert location.get("add") is not None


@function_tool
def mixed() -> list[Any]:
    """Outputs in their dict forms and a file."""
    return [
        {"type": "text", "text": "as a dict"},
        ToolOutputFileContent(file_url="https://example.com/a.pdf"),
        ToolOutputImage(image_url="https://example.com/a.png"),
    ]


@function_tool
def counts() -> dict[str, int]:
    """A plain value."""
    return {"n": 1}


def test_other_outputs_are_text_that_says_what_they_are() -> None:
    location = Location()
    register(location, [mixed, counts])
    shown = _call(location, "mixed", {})
    assert isinstance(shown, ToolExecutionSuccess)
    assert shown.content == (
        TextBlock("as a dict"),
        TextBlock("[file: https://example.com/a.pdf]"),
        TextBlock("[image: https://example.com/a.png]"),
    )
    value = _call(location, "counts", {})
    assert isinstance(value, ToolExecutionSuccess)
    assert (value.value, value.content) == ({"n": 1}, (TextBlock('{"n": 1}'),))
