"""Progress of running calls reaches the CLI: through the session runner's runtime under every
interpreter, and onto the live progress display of a terminal."""

from __future__ import annotations

import io
from typing import TypedDict

import pytest
from rich.console import Console

from toolfx.core.registry import Location
from toolfx.core.runtime import ProgressEvent
from toolfx.core.tools import Output, ToolRunContext, define_tool
from toolfx.interpreters.cli._log import Interpreter, LogRecord
from toolfx.interpreters.cli._render import JsonDisplay, PanelDisplay
from toolfx.interpreters.cli._runner import run_session
from toolfx.interpreters.cli._session import SessionCall


class Steps(TypedDict):
    steps: int


def stepping(args: Steps, ctx: ToolRunContext) -> str:
    for step in range(1, args["steps"] + 1):
        ctx.report_progress(step, args["steps"], f"step {step}")
    return "done"


@pytest.mark.parametrize("interpreter", ["sync", "asyncio", "trio"])
def test_a_calls_progress_reaches_the_sessions_reporter(interpreter: Interpreter) -> None:
    location = Location()
    location.register(
        define_tool(
            name="step", description="d", parameters=Steps, output=Output(str), execute=stepping
        )
    )
    events: list[ProgressEvent] = []
    records: list[LogRecord] = []
    turn = (SessionCall("c1", "step", {"steps": 2}),)
    run_session(
        [turn],
        location.catalog(),
        interpreter,
        lambda request: "rejected",
        records.append,
        progress=events.append,
    )
    assert events == [
        ProgressEvent("c1", "step", 1.0, 2.0, "step 1"),
        ProgressEvent("c1", "step", 2.0, 2.0, "step 2"),
    ]


def test_a_terminal_shows_progress_on_its_live_display() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100, color_system=None)
    display = PanelDisplay(console, Location().catalog())
    display.progress(ProgressEvent("c1", "fx_write", 1, 3, "step 1"))
    display.progress(ProgressEvent("c1", "fx_write", 2, 3, "step 2"))
    display.finish()
    drawn = out.getvalue()
    assert "fx_write · c1" in drawn
    assert "2/3" in drawn
    assert "│ step 2" in drawn
    assert "\x1b[2K" in drawn  # erased when it stopped


def test_without_a_terminal_or_as_json_progress_is_left_out() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=100)
    PanelDisplay(console, Location().catalog()).progress(ProgressEvent("c1", "t", 1))
    assert out.getvalue() == ""
    lines: list[str] = []
    JsonDisplay(lines.append).progress(ProgressEvent("c1", "t", 1))
    assert lines == []
