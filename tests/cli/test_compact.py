"""The compact display: a line per call when recorded and one when it settles, the full card of a
failed call (a command that timed out, was killed or exited non-zero too) counted as failed in
the summary, and `--verbose` with every card; what a run prints, its replay prints."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TypedDict

import pytest
from rich.console import Console

from tests.cli.support import toolfx, write_session
from toolfx.core.records import ToolApprovalRecord, ToolCallRecord, ToolResultRecord, freeze
from toolfx.core.registry import Location
from toolfx.core.tools import (
    DurableResult,
    ErrorCode,
    Output,
    TerminalCallCard,
    TerminalResultCard,
    TextBlock,
    ToolCallView,
    ToolResultView,
    ToolRunContext,
    define_tool,
    failed,
)
from toolfx.interpreters.cli._log import LogRecord, SessionHeader, TurnRecord
from toolfx.interpreters.cli._render import PanelDisplay


class Command(TypedDict):
    line: str
    exit: int
    timed_out: bool


def command_tool_location() -> Location:
    """A location with `cmd`, a tool whose cards say how its (pretend) command ended."""

    def ran(args: Command, ctx: ToolRunContext) -> str:
        return "ran"

    def pending(args: Command) -> ToolCallView:
        return TerminalCallCard(args["line"])

    def ended(args: Command, result: DurableResult) -> ToolResultView:
        killed = "SIGKILL" if args["timed_out"] else None
        code = None if killed else args["exit"]
        return TerminalResultCard(
            args["line"], "out\n", code, killed, 1.25, timed_out=args["timed_out"]
        )

    location = Location()
    location.register(
        define_tool(
            name="cmd",
            description="d",
            parameters=Command,
            output=Output(str),
            execute=ran,
            present_call=pending,
            present_result=ended,
        )
    )
    return location


def shown(*, verbose: bool = False) -> str:
    """What a plain console shows of a session of three commands: one exits 0, one exits 1, one
    times out; and a call that fails."""
    out = io.StringIO()
    console = Console(file=out, width=80, color_system=None, highlight=False)
    display = PanelDisplay(console, command_tool_location().catalog(), verbose=verbose)
    records: list[LogRecord] = [SessionHeader("/ws", "sync"), TurnRecord(1, 4)]
    for call_id, exit_code, timed_out in [("c1", 0, False), ("c2", 1, False), ("c3", 0, True)]:
        arguments = freeze({"line": f"make {call_id}", "exit": exit_code, "timed_out": timed_out})
        records += [
            ToolCallRecord(call_id, call_id, "cmd", arguments),
            ToolResultRecord(call_id, DurableResult((TextBlock("out"),))),
        ]
    records += [
        ToolCallRecord("c4", "c4", "cmd", {"line": "rm", "exit": 0, "timed_out": False}),
        ToolApprovalRecord("c4", "bash", ("rm",), None, "rejected"),
        ToolResultRecord.of("c4", failed(ErrorCode.DENIED, "no")),
    ]
    for record in records:
        display.show(record)
    display.finish()
    return out.getvalue()


def test_a_call_is_two_lines_and_a_failed_one_its_card() -> None:
    lines = shown().splitlines()
    turn = lines.index(next(line for line in lines if "turn 1 · 4 calls" in line))
    assert lines[turn + 1 : turn + 3] == ["● cmd · c1  make c1", "✓ cmd make c1 · exit 0 · 1.2 s"]
    assert lines[turn + 3] == "● cmd · c2  make c2"
    assert lines[turn + 4].startswith("╭─ cmd · c2 ─")  # a non-zero exit: the full card
    assert lines[turn + 5 : turn + 7] == [f"│ {text:<76} │" for text in ("make c2", "out")]
    assert lines[turn + 7] == f"│ {'exit 1 · 1.2 s':<76} │"
    assert lines[turn + 8].endswith(" non-zero exit ─╯")
    card = lines.index(next(line for line in lines if line.startswith("╭─ cmd · c3 ─")))
    assert lines[card + 3] == f"│ {'timed out · 1.2 s':<76} │"
    assert lines[card + 4].endswith(" timed out ─╯")
    assert "approval cmd · c4: bash rm → rejected" in lines
    assert lines[-2:] == [
        "4 calls: 1 succeeded, 3 failed (DENIED 1, non-zero exit 1, timed out 1)",
        "1 approval asked: rejected 1",
    ]


def test_verbose_shows_every_calls_cards_and_counts_the_same() -> None:
    out = shown(verbose=True)
    assert out.count("╭─ cmd · c1 ─") == 2  # pending and completed
    assert "╭─ cmd · c4 ─" in out
    assert "✓ " not in out
    assert "4 calls: 1 succeeded, 3 failed (DENIED 1, non-zero exit 1, timed out 1)" in out


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("".join(f"line {n}\n" for n in range(1, 19)), encoding="utf-8")
    return root


def test_a_run_prints_its_lines_and_its_replay_prints_them_again(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    session = write_session(
        tmp_path / "s.jsonl",
        {
            "calls": [
                {"id": "r1", "name": "read", "arguments": {"path": "a.py"}},
                {
                    "id": "e1",
                    "name": "edit",
                    "arguments": {"path": "a.py", "old": "line 9\n", "new": "9\nnine\n"},
                },
                {"id": "w1", "name": "write", "arguments": {"path": "new.py", "content": "a\nb\n"}},
                {"id": "b1", "name": "bash", "arguments": {"command": "echo hi"}},
            ]
        },
    )
    log = str(tmp_path / "run.jsonl")
    argv = ["run", session, "--workspace", str(workspace), "--no-color", "--yes", "--log", log]
    ran = toolfx(capsys, *argv)
    assert ran.code == 0, ran.err
    lines = ran.out.splitlines()
    for line in [
        "● read · r1  a.py",
        "✓ read a.py · 18 lines",
        "● edit · e1  a.py",
        "✓ edit a.py · +2 −1",
        "● write · w1  new.py",
        "✓ write new.py · 2 lines",
        "● bash · b1  echo hi",
    ]:
        assert line in lines, line
    assert any(line.startswith("✓ bash echo hi · exit 0") for line in lines)
    assert "╭" not in ran.out
    assert toolfx(capsys, "replay", log, "--no-color").out == ran.out
    verbose = toolfx(capsys, "replay", log, "--no-color", "--verbose").out
    assert verbose.count("╭─ read · r1 ─") == 2
    assert "✓ " not in verbose


@pytest.mark.parametrize(
    ("reason", "line"),
    [
        (None, "approval cmd · c1: bash rm x → rejected"),
        ("rm x", "approval cmd · c1: bash rm x → rejected"),  # the pattern again: not repeated
        ("bash rm x", "approval cmd · c1: bash rm x → rejected"),
        (
            "rm x\n(not sandboxed)",
            "approval cmd · c1: bash rm x (rm x\\x0a(not sandboxed)) → rejected",
        ),
    ],
)
def test_an_approval_line_shows_its_reason_only_when_it_adds_something(
    reason: str | None, line: str
) -> None:
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, highlight=False)
    display = PanelDisplay(console, command_tool_location().catalog())
    display.show(ToolCallRecord("c1", "c1", "cmd", {"line": "rm x", "exit": 0, "timed_out": False}))
    display.show(ToolApprovalRecord("c1", "bash", ("rm x",), reason, "rejected"))
    assert line in out.getvalue().splitlines()
