"""pydantic-ai tools registered in a Location run through toolfx's pipeline."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import BaseModel, field_validator
from pydantic_ai import Agent, FunctionToolset, ModelRetry, RunContext, Tool, ToolDefinition
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart
from pydantic_ai.models.test import TestModel

from toolfx.core import (
    CancelSignal,
    ErrorCode,
    Location,
    ToolCall,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    execute,
    thaw_json,
)
from toolfx.interpreters import run_anyio, run_sync
from toolfx.interpreters.pydantic_ai import toolset
from toolfx.leaves.pydantic_ai import PydanticAIToolError, definitions, register

if TYPE_CHECKING:
    from toolfx.core import ToolExecution

CALLED: list[str] = []


def repeat(word: str, times: int = 2) -> str:
    """Repeat a word.

    Args:
        word: The word to repeat.
        times: How many times.
    """
    CALLED.append(word)
    if times < 0:
        raise ModelRetry("times must not be negative")
    if times == 0:
        raise LookupError("nothing to repeat")
    return word * times


class Point(BaseModel):
    x: int
    y: int = 0


@dataclass(frozen=True)
class Moved:
    x: int
    y: int


async def move(point: Point) -> Moved:
    """Move a point right."""
    return Moved(point.x + 1, point.y)


async def broken(n: int) -> int:
    """Always fails."""
    raise RuntimeError(f"broken {n}")


def total(first: int, /, *rest: int) -> int:
    """Add numbers."""
    return first + sum(rest)


def opaque() -> object:
    """Returns something that is not JSON."""
    return object()


def _call(location: Location, name: str, arguments: object) -> ToolExecutionResult:
    return run_anyio(execute(location.catalog(), ToolCall("c1", name, arguments, CancelSignal())))


def _location() -> Location:
    location = Location()
    register(location, [Tool(repeat), Tool(move), Tool(broken), Tool(total), Tool(opaque)])
    return location


def test_a_tool_keeps_its_name_description_and_schema() -> None:
    (definition,) = definitions([Tool(repeat)])
    assert definition.name == "repeat"
    assert definition.description.startswith("Repeat a word.")
    assert thaw_json(definition.parameters.json_schema) == Tool(repeat).function_schema.json_schema
    assert definition.blocking  # a plain def runs in a thread under async interpreters
    (moved,) = definitions(FunctionToolset([move]), namespace="geo")
    assert (moved.name, moved.options.namespace, moved.blocking) == ("move", "geo", False)


def test_a_success_runs_the_function_with_pydantic_values() -> None:
    location = _location()
    result = _call(location, "repeat", {"word": "ab"})
    assert isinstance(result, ToolExecutionSuccess)
    assert result.value == "abab"
    moved = _call(location, "move", {"x": 1})
    assert isinstance(moved, ToolExecutionSuccess)
    assert moved.value == {"x": 2, "y": 0}
    added = _call(location, "total", {"first": 1, "rest": [2, 3]})
    assert isinstance(added, ToolExecutionSuccess)
    assert added.value == 6
    synced = run_sync(
        execute(location.catalog(), ToolCall("s", "repeat", {"word": "z"}, CancelSignal()))
    )
    assert isinstance(synced, ToolExecutionSuccess)
    assert synced.value == "zz"


def test_toolfx_validates_before_the_function_runs() -> None:
    CALLED.clear()
    result = _call(_location(), "repeat", {"word": 3, "extra": True})
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is ErrorCode.INVALID_ARGS
    assert result.error.message.startswith("Invalid arguments for tool `repeat`: 2 problems")
    assert CALLED == []


def test_a_rule_or_guard_denies_before_the_function_runs() -> None:
    CALLED.clear()
    location = _location()

    def paused(execution: ToolExecution) -> str | None:
        return "repeating is paused" if execution.name == "repeat" else None

    location.guard(paused)
    result = _call(location, "repeat", {"word": "a"})
    assert isinstance(result, ToolExecutionFailure)
    assert (result.error.code, result.error.message) == (
        ErrorCode.DENIED,
        "Denied: repeating is paused",
    )
    assert CALLED == []


@pytest.mark.parametrize(
    ("name", "arguments", "code", "message"),
    [
        ("repeat", {"word": "a", "times": -1}, ErrorCode.TOOL_ERROR, "times must not be negative"),
        (
            "repeat",
            {"word": "a", "times": 0},
            ErrorCode.TOOL_ERROR,
            "`repeat` failed: LookupError: nothing to repeat",
        ),
        ("broken", {"n": 7}, ErrorCode.TOOL_ERROR, "`broken` failed: RuntimeError: broken 7"),
        (
            "opaque",
            {},
            ErrorCode.INVALID_TOOL_OUTPUT,
            "`opaque` returned a value that is not JSON: ",
        ),
    ],
)
def test_what_the_tool_raises_or_returns_wrongly_is_a_typed_failure(
    name: str, arguments: dict[str, Any], code: ErrorCode, message: str
) -> None:
    result = _call(_location(), name, arguments)
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is code
    assert result.error.message.startswith(message)


class Word(BaseModel):
    text: str

    @field_validator("text")
    @classmethod
    def short(cls, text: str) -> str:
        if len(text) > 3:
            raise ValueError("too long")
        return text


def shout(word: Word) -> str:
    """Shout a short word."""
    return word.text.upper()


def test_pydantic_s_own_validation_after_toolfx_s_is_invalid_args() -> None:
    location = Location()
    register(location, [Tool(shout)])
    result = _call(location, "shout", {"text": "long"})
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is ErrorCode.INVALID_ARGS
    assert result.error.message.startswith("Invalid arguments for tool `shout`: ")
    assert "too long" in result.error.message
    shouted = _call(location, "shout", {"text": "hey"})
    assert isinstance(shouted, ToolExecutionSuccess)
    assert shouted.value == "HEY"


def _with_ctx(ctx: RunContext[None], word: str) -> str:
    return word


async def _prepare(ctx: RunContext[None], tool: ToolDefinition) -> ToolDefinition:
    return tool


@pytest.mark.parametrize(
    ("tool", "reason"),
    [
        (Tool(_with_ctx), "it takes a pydantic-ai RunContext"),
        (Tool(repeat, prepare=_prepare), "its `prepare` function needs a pydantic-ai RunContext"),
        (Tool(repeat, requires_approval=True), "it requires pydantic-ai's approval"),
        (
            Tool.from_schema(
                repeat, name="odd", description="", json_schema={"type": "object", "wat": 1}
            ),
            "toolfx cannot enforce its JSON schema",
        ),
        (Tool(repeat, name="two words"), "tool 'two words': name: 'two words' must match"),
        (
            Tool.from_schema(repeat, name="text", description="", json_schema={"type": "string"}),
            "tool 'text': parameters: must describe a JSON object",
        ),
    ],
)
def test_a_tool_toolfx_cannot_run_is_refused_by_name(tool: Tool[Any], reason: str) -> None:
    with pytest.raises(
        PydanticAIToolError, match=f"pydantic-ai tool '{tool.name}' cannot"
    ) as raised:
        definitions([tool])
    assert raised.value.tool == tool.name
    assert raised.value.reason.startswith(reason)


def test_one_disposer_removes_every_tool() -> None:
    location = Location()
    dispose = register(location, FunctionToolset([repeat, move]))
    assert sorted(schema.name for schema in location.catalog().schemas()) == ["move", "repeat"]
    dispose()
    assert len(location.catalog()) == 0


def test_an_imported_tool_runs_in_a_pydantic_ai_agent_through_the_pipeline() -> None:
    location = Location()
    register(location, [Tool(repeat)])
    agent = Agent(TestModel(), toolsets=[toolset(location)])
    messages: list[ModelMessage] = asyncio.run(agent.run("go")).all_messages()
    (returned,) = [
        part
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]
    assert returned.content == "aa"
