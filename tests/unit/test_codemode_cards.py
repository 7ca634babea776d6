"""`run_code`'s cards: the program as code while it runs, its tool calls and result once done."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolfx.core.codemode import RUN_CODE, RunCodeArgs
from toolfx.core.json import snapshot_json
from toolfx.core.registry import Location, Registry
from toolfx.core.tools import (
    CodeCallCard,
    CodeResultCard,
    DurableResult,
    ErrorCode,
    Output,
    TextBlock,
    ToolDefinition,
    ToolFailure,
    define_tool,
)


class EchoArgs(TypedDict):
    """What to echo."""

    text: str


def _echo() -> ToolDefinition[EchoArgs, str]:
    def echo(args: EchoArgs, ctx: object) -> str:
        return args["text"]

    return define_tool(
        name="echo", description="Echo.", parameters=EchoArgs, output=Output(str), execute=echo
    )


def run_code() -> ToolDefinition[RunCodeArgs, Any]:
    """The `run_code` definition of a catalog presented as code."""
    location = Location(Registry(default_mode="code"))
    location.register(_echo())
    definition = location.get(RUN_CODE)
    assert definition is not None
    return definition


def call_card(code: str) -> object:
    present = run_code().present_call
    assert present is not None
    return present({"code": code})


def result_card(result: DurableResult) -> object:
    present = run_code().present_result
    assert present is not None
    return present({"code": "1"}, result)


def meta(calls: object, failed: object) -> Any:
    return snapshot_json({"calls": calls, "failed": failed}).unwrap()


@pytest.mark.parametrize(
    ("code", "title"),
    [
        ("", "Run a program (0 lines)"),
        ("1 + 1", "Run a program (1 line)"),
        ("1 + 1\n", "Run a program (1 line)"),
        ("x = 1\n\nx\n", "Run a program (3 lines)"),
        ("x = 1\nx", "Run a program (2 lines)"),
    ],
)
def test_the_call_card_shows_the_program_as_python(code: str, title: str) -> None:
    assert call_card(code) == CodeCallCard(title, code, "python")


def test_a_finished_program_shows_its_calls_failures_and_what_it_gave() -> None:
    result = DurableResult((TextBlock("hi\n"), TextBlock("[1, 2]")), None, meta(2, 1))
    assert result_card(result) == CodeResultCard(2, 1, "2 tool calls, 1 failed", "hi\n\n[1, 2]")


def test_one_call_is_counted_in_the_singular() -> None:
    card = result_card(DurableResult((TextBlock("3"),), None, meta(1, 0)))
    assert isinstance(card, CodeResultCard)
    assert card.title == "1 tool call, 0 failed"


def test_a_failed_program_shows_the_code_the_message_and_its_calls() -> None:
    error = ToolFailure.of(ErrorCode.TOOL_ERROR, "The program raised ValueError")
    card = result_card(DurableResult((TextBlock("x"),), error, meta(3, 2)))
    assert card == CodeResultCard(
        3, 2, "Failed (TOOL_ERROR) after 3 tool calls, 2 failed", "The program raised ValueError"
    )


def test_a_program_that_failed_before_any_call_says_only_how() -> None:
    error = ToolFailure.of(ErrorCode.INVALID_ARGS, "The program was not run")
    card = result_card(DurableResult((), error, meta(0, 0)))
    assert card == CodeResultCard(0, 0, "Failed (INVALID_ARGS)", "The program was not run")


@pytest.mark.parametrize(
    "summary",
    [
        None,
        [2, 1],
        {"calls": 2},
        {"calls": "2", "failed": 0},
        {"calls": True, "failed": 0},
        {"calls": 2, "failed": 1.0},
        {"calls": 1, "failed": 2},
        {"calls": -1, "failed": -1},
    ],
)
def test_a_result_without_a_well_formed_summary_has_no_code_card(summary: object) -> None:
    frozen = snapshot_json(summary).unwrap()
    assert result_card(DurableResult((TextBlock("x"),), None, frozen)) is None


@given(st.integers(0, 10**6), st.integers(0, 10**6), st.none() | st.text(max_size=20))
def test_any_well_formed_summary_is_shown_as_it_is(
    calls: int, failed: int, text: str | None
) -> None:
    error = None if text is None else ToolFailure.of(ErrorCode.TOOL_ERROR, text)
    card = result_card(DurableResult((TextBlock("v"),), error, meta(calls, failed)))
    if failed > calls:
        assert card is None
        return
    assert isinstance(card, CodeResultCard)
    assert (card.calls, card.failed) == (calls, failed)
    assert card.content == ("v" if text is None else text)
