"""Code Mode on the command line: `--present`, `run_code` calls with their program's calls nested
under them, the log keeping and replaying `tool/code-dispatch` records, and a clear failure
without Monty. The programs run in Monty's real workers (the dev set has it)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from rich.console import Console, RenderableType

from tests.cli.support import Ran, toolfx, write_session
from toolfx.core.codemode import RUN_CODE
from toolfx.core.records import ToolCallRecord, ToolCodeDispatchRecord, ToolResultRecord
from toolfx.core.registry import Location
from toolfx.core.runtime import ProgressEvent
from toolfx.core.tools import TextBlock
from toolfx.interpreters.cli._args import McpServeCommand, RunCommand, ToolsCommand, parse_args
from toolfx.interpreters.cli._log import (
    INTERPRETERS,
    LogError,
    SessionHeader,
    TurnRecord,
    log_line,
    read_log,
)
from toolfx.interpreters.cli._render import PanelDisplay

GATHER = """\
import asyncio

found, notes = await asyncio.gather(
    glob(pattern="*.txt", path="."),
    read(path="notes.txt", offset=1, limit=10),
)
[found, notes]
"""

CATCH_THEN_WRITE = """\
try:
    await read(path="missing.txt", offset=1, limit=1)
except RuntimeError:
    "caught"
await write(path="a.txt", content="A\\n")
"""


def program_turn(call_id: str, code: str) -> dict[str, object]:
    return {"calls": [{"id": call_id, "name": RUN_CODE, "arguments": {"code": code}}]}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("first\nsecond\n", encoding="utf-8")
    return root


def run(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    workspace: Path,
    *turns: object,
    verbose: bool = False,
    **kw: str,
) -> Ran:
    """`toolfx run` of `turns` with the tools presented as code (and `--yes`), plus options."""
    session = write_session(tmp_path / "session.jsonl", *turns)
    options = [item for key, value in kw.items() for item in (f"--{key}", value)]
    options += ["--verbose"] if verbose else []
    return toolfx(
        capsys,
        "run",
        session,
        "--workspace",
        str(workspace),
        "--no-color",
        "--yes",
        "--present",
        "code",
        *options,
    )


def test_run_shows_a_line_for_the_program_then_one_for_each_of_its_calls_then_its_result(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    ran = run(capsys, tmp_path, workspace, program_turn("c1", GATHER))
    assert ran.code == 0, ran.err
    calls = ran.out.split("turn 1 · 1 call ─")[1].split("\n─")[0].splitlines()[1:]
    glob, read = sorted(calls[1:3])  # the log keeps what the model got: read's numbered lines
    assert glob == "    ✓ glob *.txt in . · notes.txt"
    assert read.startswith("    ✓ read notes.txt · 1 ")
    assert read.endswith("first (2 lines)")
    assert [calls[0], calls[3]] == [
        "● run_code · c1  7 lines of python",
        "✓ run_code 7 lines of python · 2 tool calls, 0 failed",
    ]
    assert "2 program tool calls: 2 succeeded, 0 failed" in ran.out


def test_verbose_run_shows_the_program_then_each_of_its_calls_nested_then_its_result(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    ran = run(capsys, tmp_path, workspace, program_turn("c1", GATHER), verbose=True)
    assert ran.code == 0, ran.err
    out = ran.out
    shown = [
        "toolfx session · sync · tools as code",
        "╭─ run_code · c1 ─",
        "Run a program (7 lines)",
        "  3 found, notes = await asyncio.gather(",
        "    ╭─ glob · c1:code:1 ─",
        "Glob *.txt in .",
        "    ╭─ read · c1:code:2 ─",
        "Read notes.txt",
        "2 tool calls, 0 failed",
        '"paths":["notes.txt"]',
        "1 call: 1 succeeded, 0 failed",
        "2 program tool calls: 2 succeeded, 0 failed",
    ]
    places = [out.find(text) for text in shown]
    assert -1 not in places, [text for text, at in zip(shown, places, strict=True) if at < 0]
    assert places == sorted(places)


def test_a_program_call_that_fails_or_asks_is_shown_under_the_program(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    ran = run(capsys, tmp_path, workspace, program_turn("c2", CATCH_THEN_WRITE))
    assert ran.code == 0, ran.err
    lines = ran.out.splitlines()
    failed = next(i for i, line in enumerate(lines) if "╭─ read · c2:code:1 ─" in line)
    assert "missing.txt does not exist" in lines[failed + 3]
    assert lines[failed + 4].startswith("    ╰─")
    assert lines[failed + 4].endswith(" failed ─╯")
    asked = "    approval write · c2:code:2: edit a.txt (write a.txt) → allowed once"
    assert asked in [line.rstrip() for line in lines]
    assert "2 tool calls, 1 failed" in ran.out
    assert "2 program tool calls: 1 succeeded, 1 failed" in ran.out
    assert (workspace / "a.txt").read_text(encoding="utf-8") == "A\n"


@pytest.mark.parametrize("interpreter", list(INTERPRETERS))
def test_the_log_keeps_the_programs_calls_and_replays_them_byte_for_byte(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, interpreter: str
) -> None:
    log = tmp_path / "session.log"
    turns = (program_turn("c1", GATHER), program_turn("c2", CATCH_THEN_WRITE))
    live = run(capsys, tmp_path, workspace, *turns, log=str(log), interpreter=interpreter)
    assert live.code == 0, live.err
    text = log.read_text(encoding="utf-8")
    header, records = read_log(text)
    assert header == SessionHeader(str(workspace), INTERPRETERS[interpreter], "code")
    assert [log_line(record) for record in (header, *records)] == text.splitlines()
    sub_calls = [r for r in records if isinstance(r, ToolCallRecord) and r.parent_call_id]
    assert sorted((r.call_id, r.root_call_id, r.name) for r in sub_calls) == [
        ("c1:code:1", "c1", "glob"),
        ("c1:code:2", "c1", "read"),
        ("c2:code:1", "c2", "read"),
        ("c2:code:2", "c2", "write"),
    ]
    dispatches = [r for r in records if isinstance(r, ToolCodeDispatchRecord)]  # as settled
    assert sorted((r.call_id, r.parent_call_id, r.is_error) for r in dispatches) == [
        ("c1:code:1", "c1", False),
        ("c1:code:2", "c1", False),
        ("c2:code:1", "c2", True),
        ("c2:code:2", "c2", False),
    ]
    opened = {call.call_id: records.index(call) for call in sub_calls}
    for dispatch in dispatches:  # each program call's `tool/call` comes before its dispatch
        assert opened[dispatch.call_id] < records.index(dispatch)
    results = [r for r in records if isinstance(r, ToolResultRecord)]
    assert [r.result.meta for r in results] == [
        {"calls": 2, "failed": 0},
        {"calls": 2, "failed": 1},
    ]
    replayed = toolfx(capsys, "replay", str(log), "--no-color")
    assert replayed.code == 0
    assert replayed.out == live.out


def test_json_lines_carry_each_program_call_with_its_parent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    log = tmp_path / "session.log"
    ran = run(capsys, tmp_path, workspace, program_turn("c2", CATCH_THEN_WRITE), log=str(log))
    assert ran.code == 0, ran.err
    replayed = toolfx(capsys, "replay", str(log), "--json")
    lines = [json.loads(line) for line in replayed.out.splitlines()]
    assert lines[:2] == [
        {
            "callId": "c2:code:1",
            "parentCallId": "c2",
            "tool": "read",
            "isError": True,
            "content": "missing.txt does not exist",
        },
        {
            "callId": "c2:code:2",
            "parentCallId": "c2",
            "tool": "write",
            "isError": False,
            "content": "Created a.txt (1 line)",
        },
    ]
    assert lines[2]["callId"] == "c2"
    assert lines[2]["meta"] == {"calls": 2, "failed": 1}


def test_under_code_the_tools_are_reached_only_through_programs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    direct = {"calls": [{"id": "r1", "name": "read", "arguments": {"path": "notes.txt"}}]}
    session = write_session(tmp_path / "direct.jsonl", direct)
    for present, code in (("code", "UNKNOWN_TOOL"), ("both", None), ("native", None)):
        ran = toolfx(
            capsys, "run", session, "--workspace", str(workspace), "--json", "--present", present
        )
        (result,) = [json.loads(line) for line in ran.out.splitlines()]
        assert (result["error"] or {}).get("code") == code, present


def test_without_monty_a_program_fails_saying_how_to_install_it(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    workspace: Path,
) -> None:
    monkeypatch.setitem(sys.modules, "pydantic_monty", None)  # `import pydantic_monty` fails
    ran = run(capsys, tmp_path, workspace, program_turn("c1", GATHER))
    assert ran.code == 0, ran.err
    assert "Failed (TOOL_ERROR)" in ran.out
    assert "Code Mode needs an engine: install the `codemode` extra" in ran.out
    assert "1 call: 0 succeeded, 1 failed (TOOL_ERROR 1)" in ran.out


def names(ran: Ran) -> list[str]:
    assert ran.code == 0, ran.err
    return [tool["name"] for tool in json.loads(ran.out)]


def test_tools_lists_run_code_for_tools_presented_as_code(
    capsys: pytest.CaptureFixture[str], workspace: Path
) -> None:
    native = names(toolfx(capsys, "tools", "--workspace", str(workspace)))
    both = names(toolfx(capsys, "tools", "--workspace", str(workspace), "--present", "both"))
    code = toolfx(capsys, "tools", "--workspace", str(workspace), "--present", "code")
    assert RUN_CODE not in native
    assert "read" in native
    assert both == sorted([*native, RUN_CODE])
    assert names(code) == [RUN_CODE]  # every built-in tool is in Code Mode
    (run_code,) = json.loads(code.out)
    assert "async def read(" in run_code["description"]  # the stubs the model reads
    assert run_code["parameters"]["required"] == ["code"]
    openai = toolfx(
        capsys, "tools", "--workspace", str(workspace), "--present", "code", "--format", "openai"
    )
    assert [tool["function"]["name"] for tool in json.loads(openai.out)] == [RUN_CODE]


def test_present_is_native_unless_asked_on_run_tools_and_mcp_serve(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert parse_args(["run", "s", "--workspace", "w"]) == RunCommand("s", "w")
    assert parse_args(["tools"]) == ToolsCommand()
    assert parse_args(["mcp", "serve"]) == McpServeCommand()
    for mode in ("native", "code", "both"):
        run = parse_args(["run", "s", "--workspace", "w", "--present", mode])
        tools = parse_args(["tools", "--present", mode])
        serve = parse_args(["mcp", "serve", "--present", mode])
        assert isinstance(run, RunCommand)
        assert isinstance(tools, ToolsCommand)
        assert isinstance(serve, McpServeCommand)
        assert run.present == tools.present == serve.present == mode
    with pytest.raises(SystemExit):
        parse_args(["tools", "--present", "python"])
    assert "invalid choice: 'python'" in capsys.readouterr().err


def test_the_header_keeps_the_presentation_and_an_older_log_reads_as_native() -> None:
    header = SessionHeader("/ws", "trio", "both")
    assert json.loads(log_line(header))["present"] == "both"
    assert read_log(log_line(header)) == (header, ())
    older = '{"event":"session","workspace":"/ws","interpreter":"sync"}'
    assert read_log(older) == (SessionHeader("/ws", "sync", "native"), ())
    with pytest.raises(LogError, match=r"line 1: .*unknown presentation 'python'"):
        read_log('{"event":"session","workspace":"/ws","interpreter":"sync","present":"python"}')


def test_a_dispatch_whose_call_is_unknown_is_still_shown_nested_with_its_content() -> None:
    out = io.StringIO()
    display = PanelDisplay(Console(file=out, width=80, color_system=None), Location().catalog())
    display.show(ToolCodeDispatchRecord("x:code:1", "x", "gone", True, (TextBlock("it broke"),)))
    display.finish()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("    ╭─ gone · x:code:1 ─")
    assert "it broke" in lines[1]
    assert lines[2].endswith(" failed ─╯")
    assert "1 program tool call: 0 succeeded, 1 failed" in out.getvalue()


def test_a_program_calls_live_row_goes_when_it_settles_without_advancing_the_turn() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=100, color_system=None)
    display = PanelDisplay(console, Location().catalog())
    display.show(TurnRecord(1, 6))  # a turn long enough for a bar
    display.show(ToolCallRecord("c1", "c1", RUN_CODE, {"code": "1"}))
    display.show(ToolCallRecord("c1:code:1", "c1", "slow", {}, None, "c1"))
    display.progress(ProgressEvent("c1:code:1", "slow", 1, 2))
    region = display._live  # what the live region draws is what is tested
    assert region is not None
    (row,) = [line for line in drawn(region._calls).splitlines() if "slow · c1:code:1" in line]
    assert row.startswith("    ")  # indented under the program
    display.show(ToolCodeDispatchRecord("c1:code:1", "c1", "slow", False, ()))
    now = drawn(region._calls)
    assert "slow" not in now
    assert "0/6" in now
    assert f"{RUN_CODE} · c1" in now
    display.finish()


def drawn(renderable: RenderableType) -> str:
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(renderable)
    return out.getvalue()
