"""LangChain tools registered in a Location run through toolfx's pipeline."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, InjectedToolCallId, ToolException, tool
from langgraph.prebuilt import InjectedState, ToolRuntime

from toolfx.core import (
    CancelSignal,
    ErrorCode,
    Location,
    TextBlock,
    ToolCall,
    ToolDefinitionError,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    execute,
)
from toolfx.interpreters import run_anyio, run_sync
from toolfx.leaves.langchain import definitions, register

Backend = Literal["asyncio", "trio"]

ran: list[str] = []


@tool
def add(a: int, b: int = 1) -> int:
    """Add two numbers.

    Args:
        a: the first
        b: the second
    """
    ran.append("add")
    return a + b


@tool
async def shout(text: str) -> str:
    """Shout the text."""
    return text.upper()


@tool
def broken(reason: str) -> str:
    """Always fails."""
    raise ValueError(reason)


@tool
def whose(call_id: Annotated[str, InjectedToolCallId]) -> str:
    """The id of the call."""
    return call_id


class Picture(BaseTool):
    """A tool with a JSON Schema dict that answers with an image and text."""

    name: str = "picture"
    description: str = "Draw"
    args_schema: dict[str, Any] = {  # noqa: RUF012 (LangChain's field)
        "type": "object",
        "properties": {"size": {"type": "integer", "minimum": 1}},
        "required": ["size"],
    }
    handle_tool_error: bool = True

    def _run(self, size: int) -> list[str | dict[str, Any]]:
        if size > 10:
            raise ToolException("too big")
        return ["drawn", {"type": "image", "base64": "AAAA", "mime_type": "image/png"}]


def _run(location: Location, name: str, **arguments: object) -> ToolExecutionResult:
    call = ToolCall(f"{name}-1", name, arguments, CancelSignal())
    return run_anyio(execute(location.catalog(), call))


def _failure(result: ToolExecutionResult) -> tuple[ErrorCode, str]:
    assert isinstance(result, ToolExecutionFailure)
    return result.error.code, result.error.message


def _location(*tools: BaseTool, namespace: str | None = None) -> Location:
    location = Location()
    register(location, tools, namespace=namespace)
    return location


def test_a_langchain_tool_runs_with_its_schema_checked_by_toolfx_first() -> None:
    location = _location(add)
    ran.clear()
    done = _run(location, "add", a=2)
    assert isinstance(done, ToolExecutionSuccess)
    assert (done.value, done.content) == ("3", (TextBlock("3"),))
    code, message = _failure(_run(location, "add", a="two"))
    assert code is ErrorCode.INVALID_ARGS
    assert "/a: expected integer" in message
    assert ran == ["add"]  # the bad call never reached the tool
    [schema] = location.schemas()
    assert schema.description.startswith("Add two numbers.")
    assert schema.parameters == {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "default": 1}},
        "required": ["a"],
    }


def test_toolfx_rules_and_guards_apply_before_the_langchain_tool_runs() -> None:
    location = _location(add)
    location.guard(lambda execution: "adding is paused" if execution.name == "add" else None)
    ran.clear()
    assert _failure(_run(location, "add", a=1)) == (ErrorCode.DENIED, "Denied: adding is paused")
    assert ran == []


def test_a_raising_tool_and_an_error_message_are_tool_errors() -> None:
    location = _location(broken, Picture())
    assert _failure(_run(location, "broken", reason="disk full")) == (
        ErrorCode.TOOL_ERROR,
        "ValueError: disk full",
    )
    assert _failure(_run(location, "picture", size=11)) == (ErrorCode.TOOL_ERROR, "too big")
    code, _ = _failure(_run(location, "picture", size=0))
    assert code is ErrorCode.INVALID_ARGS  # `minimum` enforced by toolfx (profile full)


def test_the_tool_s_content_text_and_images_reach_the_model() -> None:
    location = _location(Picture(), shout)
    drawn = _run(location, "picture", size=2)
    assert isinstance(drawn, ToolExecutionSuccess)
    assert [block.type for block in drawn.content] == ["text", "image"]
    shouted = _run(location, "shout", text="hi")
    assert isinstance(shouted, ToolExecutionSuccess)
    assert shouted.value == "HI"


def test_a_tool_taking_the_call_id_gets_toolfx_s() -> None:
    done = _run(_location(whose, namespace="lc"), "lc_whose")
    assert isinstance(done, ToolExecutionSuccess)
    assert done.value == "lc_whose-1"


def test_the_disposer_removes_every_tool_registered() -> None:
    location = Location()
    remove = register(location, [add, shout], namespace="lc")
    assert [schema.name for schema in location.schemas()] == ["lc_add", "lc_shout"]
    remove()
    assert location.schemas() == ()


@tool
def stateful(query: str, state: Annotated[dict[str, Any], InjectedState]) -> str:
    """Needs the graph's state."""
    return query


@tool
def with_runtime(query: str, runtime: ToolRuntime) -> str:
    """Needs LangGraph's runtime."""
    return query


class Messages(BaseTool):
    """Answers with something other than a message."""

    name: str = "command"
    description: str = "Answers with a list of messages"

    def _run(self) -> list[ToolMessage]:
        return [ToolMessage("a", tool_call_id="x"), ToolMessage("b", tool_call_id="y")]


class Loose(BaseTool):
    """A JSON Schema toolfx cannot enforce."""

    name: str = "loose"
    description: str = "Loose"
    args_schema: dict[str, Any] = {"type": "object", "x-unknown": 1}  # noqa: RUF012

    def _run(self) -> str:
        return ""


@tool
def calls_back(callback: Callable[[int], int]) -> int:
    """Takes a function, which no JSON can carry."""
    return callback(1)


@tool("bad name")
def badly_named(query: str) -> str:
    """A name no provider takes."""
    return query


def test_tools_toolfx_cannot_run_faithfully_are_refused_by_name() -> None:
    with pytest.raises(ToolDefinitionError, match=r"'calls_back'.*no JSON Schema"):
        definitions([calls_back])
    with pytest.raises(ToolDefinitionError, match=r"'bad name'"):
        definitions([badly_named])
    with pytest.raises(ToolDefinitionError, match=r"'stateful'.*state would be injected"):
        definitions([stateful])
    with pytest.raises(ToolDefinitionError, match=r"'with_runtime'.*runtime"):
        definitions([with_runtime])
    with pytest.raises(ToolDefinitionError, match=r"(?s)'loose'.*x-unknown"):
        definitions([Loose()])


def test_an_answer_that_is_not_a_message_is_a_tool_error() -> None:
    code, message = _failure(_run(_location(Messages()), "command"))
    assert code is ErrorCode.TOOL_ERROR
    assert "not a ToolMessage" in message


def test_off_asyncio_the_call_fails_saying_where_to_run_it() -> None:
    location = _location(add)
    call = ToolCall("t1", "add", {"a": 1}, CancelSignal())
    ran.clear()
    for result in (
        run_anyio(execute(location.catalog(), call), "trio"),
        run_sync(execute(location.catalog(), call)),
    ):
        code, message = _failure(result)
        assert code is ErrorCode.TOOL_ERROR
        assert "runs only on asyncio" in message
    assert ran == []
