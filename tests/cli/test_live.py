"""The live region: a row per running call with its time and last output lines, driven here by
synthetic progress events and a clock the test moves; drawn on a terminal only while something
runs, erased after, and not at all while paused for a prompt."""

from __future__ import annotations

import io
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console

from toolfx.core.records import ToolApprovalRecord, ToolCallRecord
from toolfx.core.registry import Location
from toolfx.core.runtime import ProgressEvent
from toolfx.core.tools import TerminalResultCard
from toolfx.interpreters.cli._cards import result_body
from toolfx.interpreters.cli._live import (
    MAX_STREAMED_CHARS,
    STREAMED_LINES,
    LiveRegion,
    RunningCalls,
    elapsed,
)
from toolfx.interpreters.cli._log import TurnRecord
from toolfx.interpreters.cli._render import PanelDisplay

HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


class Clock:
    """A clock that moves only when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def drawn(calls: RunningCalls, width: int = 60) -> list[str]:
    """The lines a plain console `width` columns wide draws for the running calls."""
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(calls)
    return out.getvalue().splitlines()


def test_a_running_call_shows_its_spinner_title_and_time() -> None:
    clock = Clock()
    calls = RunningCalls(clock)
    calls.start("c1", "bash")
    assert drawn(calls) == ["⠋ bash · c1  0:00:00"]
    clock.now += 3725.5
    (row,) = drawn(calls)
    assert row.endswith("bash · c1  1:02:05")
    assert row[0] in "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
    assert elapsed(59.9) == "0:00:59"


def test_its_time_counts_from_the_answer_once_it_was_asked() -> None:
    clock = Clock()
    calls = RunningCalls(clock)
    calls.start("c1", "write")
    clock.now += 30
    calls.restart("c1")
    clock.now += 2
    assert drawn(calls)[0].endswith("write · c1  0:00:02")


def test_output_lines_stream_under_the_row_the_last_few_kept() -> None:
    clock = Clock()
    calls = RunningCalls(clock)
    calls.start("c1", "bash")
    calls.report(ProgressEvent("c1", "bash", 1, None, "one"))
    calls.report(ProgressEvent("c1", "bash", 4, None, "two\nthree\nfour\n"))
    assert drawn(calls)[1:] == ["  │ one", "  │ two", "  │ three", "  │ four"]
    calls.report(ProgressEvent("c1", "bash", 9, None, "\n".join(f"l{n}" for n in range(5, 10))))
    assert drawn(calls)[1:] == [f"  │ l{n}" for n in range(5, 10)]
    assert len(drawn(calls)) == 1 + STREAMED_LINES


def test_a_count_against_a_total_is_shown_and_a_call_not_recorded_gets_a_row() -> None:
    calls = RunningCalls(Clock())
    calls.report(ProgressEvent("c9", "fetch", 2, 5))
    assert drawn(calls) == ["⠋ fetch · c9  0:00:00  2/5"]


def test_hostile_and_huge_output_is_shown_visible_and_cut_to_the_width() -> None:
    calls = RunningCalls(Clock())
    calls.start("c1\x1b[2J", "bash")
    huge = "\x1b]0;pwned\x07" + "x" * 10_000_000
    calls.report(ProgressEvent("c1\x1b[2J", "bash", 1, None, f"{huge}\nrm -rf ~\rls\n\u202eabc"))
    lines = drawn(calls, width=40)
    assert lines[0] == r"⠋ bash · c1\u{1b}[2J  0:00:00"  # a call id: every character escaped
    assert lines[1] == r"  │ \x1b]0;pwned\x07" + "x" * 19 + "…"  # 40 columns
    assert lines[2:] == [r"  │ ls", r"  │ \u202eabc"]  # what a terminal shows of "rm -rf ~\rls"
    assert len(calls._rows["c1\x1b[2J"].lines[0]) < 2 * MAX_STREAMED_CHARS  # kept bounded too


@pytest.mark.parametrize(
    ("message", "shown"),
    [
        ("10%\r20%", "20%"),  # a progress line rewritten in place
        ("downloading 10%\rdownloading 20%\r", "downloading 20%"),  # ends with its return
        ("built\r\n", "built"),  # a CRLF line end
        ("\r\r", ""),
        ("\x1b[2K\r\x1b[31mfail", r"\x1b[31mfail"),  # what comes after is still escaped
    ],
)
def test_a_streamed_line_shows_what_a_terminal_shows_after_its_carriage_returns(
    message: str, shown: str
) -> None:
    calls = RunningCalls(Clock())
    calls.start("c1", "bash")
    calls.report(ProgressEvent("c1", "bash", 1, None, message))
    assert drawn(calls)[1:] == [f"  │ {shown}"]


def test_a_card_still_shows_every_carriage_return_of_the_output() -> None:
    out = io.StringIO()
    card = TerminalResultCard("pip install", "10%\r20%\n", 0)
    Console(file=out, width=60, color_system=None).print(result_body(card))
    assert out.getvalue().splitlines()[1] == r"10%\x0d20%"


def test_a_long_turn_has_a_bar_that_only_its_own_calls_move() -> None:
    calls = RunningCalls(Clock())
    calls.begin_turn(2, 6)
    calls.start("c1", "run_code")
    calls.start("c1:code:1", "read", sub=True)
    assert drawn(calls, width=80)[2].startswith("    ⠋ read · c1:code:1")
    calls.settle("c1:code:1", in_turn=False)
    assert drawn(calls, width=80)[0].endswith(" 0/6")
    calls.settle("c1", in_turn=True)
    assert drawn(calls, width=80)[0].startswith("turn 2 ")
    assert drawn(calls, width=80)[0].endswith(" 1/6")
    assert not calls.idle()  # five calls still to come
    for n in range(5):
        calls.settle(f"x{n}", in_turn=True)
    assert calls.idle()
    short = RunningCalls(Clock())
    short.begin_turn(1, 5)
    assert short.idle()
    assert drawn(short) == []


@given(messages=st.lists(st.text(max_size=300), max_size=8), width=st.integers(10, 120))
def test_any_output_draws_at_most_the_kept_lines_each_within_the_width_nothing_hidden(
    messages: list[str], width: int
) -> None:
    calls = RunningCalls(Clock())
    calls.start("c1", "tool")
    for message in messages:
        calls.report(ProgressEvent("c1", "tool", 1, None, message))
    lines = drawn(calls, width)
    assert len(lines) <= 1 + STREAMED_LINES
    assert all(cell_len(line) <= width for line in lines)
    assert not [c for line in lines for c in line if unicodedata.category(c) in HIDDEN]


def terminal(clock: Clock) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80, color_system=None, get_time=clock)
    return console, out


def drawing(region: LiveRegion) -> bool:
    """Whether the region is being drawn (a live display is started)."""
    return region._live is not None


def test_the_region_is_drawn_while_a_call_runs_and_erased_when_none_does() -> None:
    clock = Clock()
    console, out = terminal(clock)
    region = LiveRegion(console)
    region.started("c1", "bash")
    assert "⠋ bash · c1  0:00:00" in out.getvalue()
    assert drawing(region)
    region.settled("c1", in_turn=True)
    assert not drawing(region)
    assert out.getvalue().endswith("\x1b[2K\x1b[?25h\r")  # erased, the cursor back
    region.stop()


def test_nothing_is_drawn_while_paused_and_what_runs_is_drawn_again_after() -> None:
    clock = Clock()
    console, out = terminal(clock)
    region = LiveRegion(console)
    region.started("c1", "bash")
    with region.paused():
        assert not drawing(region)
        before = len(out.getvalue())
        region.reported(ProgressEvent("c1", "bash", 1, None, "while asked"))
        region.started("c2", "read")
        assert len(out.getvalue()) == before  # nothing drawn over the prompt
    assert drawing(region)
    after = out.getvalue()[before:]
    assert "bash · c1" in after
    assert "│ while asked" in after
    assert "read · c2" in after
    region.stop()
    assert not drawing(region)


def test_a_display_off_a_terminal_draws_nothing_live() -> None:
    out = io.StringIO()
    display = PanelDisplay(Console(file=out, width=80), Location().catalog())
    display.show(TurnRecord(1, 9))
    display.progress(ProgressEvent("c1", "bash", 1, None, "a line"))
    with display.paused():
        pass
    assert "a line" not in out.getvalue()
    assert "⠋" not in out.getvalue()


def test_a_replay_draws_nothing_live_even_on_a_terminal() -> None:
    clock = Clock()
    console, out = terminal(clock)
    display = PanelDisplay(console, Location().catalog(), live=False)
    display.show(ToolCallRecord("c1", "c1", "bash", {"command": "ls"}))
    display.progress(ProgressEvent("c1", "bash", 1, None, "a line"))
    display.finish()
    assert "● bash · c1" in out.getvalue()
    assert "⠋" not in out.getvalue()
    assert "a line" not in out.getvalue()


def test_a_call_whose_ask_is_deferred_is_not_drawn_as_running() -> None:
    console, _ = terminal(Clock())
    display = PanelDisplay(console, Location().catalog())
    region = display._live
    assert region is not None
    display.show(ToolCallRecord("w1", "w1", "write", {"path": "a", "content": ""}))
    assert drawing(region)
    display.show(ToolApprovalRecord("w1", "edit", ("a",), None, "deferred"))
    assert not drawing(region)
    display.finish()
