"""`toolfx demo`: every card kind, an approval, a denial, a failure, bounded output and a Code Mode
turn; its log replays to the same bytes under every interpreter; without Monty it says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.support import TOOLFX, toolfx
from tests.support import SAFETY_NET

INTERPRETERS = ["sync", "asyncio", "trio"]


def test_the_demo_shows_a_line_per_call_and_the_card_of_each_failure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ran = toolfx(capsys, "demo", "--no-color")
    assert ran.code == 0
    assert ran.err == ""
    lines = ran.out.splitlines()
    for shown in [
        "● read · read-1  src/greet.py",
        "✓ read src/greet.py · 18 lines",
        "✓ glob **/*.py · 2 paths",
        "✓ grep def \\w+ · 3 matches in 2 files",
        "● edit · edit-1  src/greet.py",
        "approval edit · edit-1: edit src/greet.py → allowed once",
        "✓ edit src/greet.py · +1 −1",
        "✓ write notes/todo.md · 4 lines",
        "● bash · bash-1  python3 src/greet.py Ada Grace",
        "╭─ bash · bash-2 ─",  # the denial, as its full card
        "│ Denied: permission 'bash' declined: a rule denies rm -rf src",
        "╭─ read · read-2 ─",  # the failing call, as its full card
        "✓ read logs/build.log · lines 1–910 of 2400",
        "● run_code · code-1  11 lines of python",
        "✓ run_code 11 lines of python · 2 tool calls, 0 failed",
        "11 calls: 9 succeeded, 2 failed (DENIED 1, TOOL_ERROR 1)",
        "2 program tool calls: 2 succeeded, 0 failed",
        "1 approval asked: allowed once 1",
    ]:
        assert any(line.startswith(shown) for line in lines), shown
    assert any(line.startswith("✓ bash python3 src/greet.py Ada Grace · exit 0") for line in lines)
    assert sum(line.startswith("    ✓ ") for line in lines) == 2  # the program's two calls
    assert "Hello again, Ada!" not in ran.out  # a call that succeeded shows no card
    assert "\x1b[" not in ran.out


def test_the_verbose_demo_shows_every_kind_of_card_and_outcome(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ran = toolfx(capsys, "demo", "--no-color", "--verbose")
    assert ran.code == 0
    assert ran.err == ""
    out = ran.out
    for shown in [
        '│    1 """A tiny greeter',  # read: numbered lines
        '+    return f"Hello again, {name}!"',  # diff from edit
        "+++ b/notes/todo.md",  # diff from write (a new file)
        "• src/greet.py",  # search paths from glob
        "      6: def greet(name: str) -> str:",  # search matches from grep
        "Hello again, Ada!",  # terminal output from bash
        "exit 0",
        "approval edit · edit-1: edit src/greet.py → allowed once",
        "a rule denies rm -rf",  # the denial
        "src/test_greet.py does not exist",  # the failing call
        "of 2400; more from line",  # bounded read of the long log
        "[build] step 2400: compiled",  # bounded command output: its end is shown too
        "│    4 files, defs = await asyncio.gather(",  # the Code Mode program, as code
        "    ╭─ glob · code-1:code:1 ─",  # its calls, nested under it
        "    ╭─ grep · code-1:code:2 ─",
        "2 tool calls, 0 failed",  # what the program made of them
        '{"python_files":2,"functions":3,"per_file":{"src/greet.py":2,"src/shapes.py":1}}',
        "11 calls: 9 succeeded, 2 failed (DENIED 1, TOOL_ERROR 1)",
        "2 program tool calls: 2 succeeded, 0 failed",
        "1 approval asked: allowed once 1",
    ]:
        assert shown in out, shown
    assert "\x1b[" not in out


def test_without_monty_the_demos_program_says_how_to_install_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pydantic_monty", None)  # `import pydantic_monty` fails
    ran = toolfx(capsys, "demo", "--no-color")
    assert ran.code == 0
    assert "Code Mode needs an engine: install the `codemode` extra" in ran.out
    assert "11 calls: 8 succeeded, 3 failed (DENIED 1, TOOL_ERROR 2)" in ran.out


def test_the_demo_prints_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    ran = toolfx(capsys, "demo", "--json")
    lines = [json.loads(line) for line in ran.out.splitlines()]
    results = [line for line in lines if "parentCallId" not in line]
    assert len(results) == 11
    assert [line["tool"] for line in lines if "parentCallId" in line] == ["glob", "grep"]
    denied = next(result for result in results if result["callId"] == "bash-2")
    assert denied["tool"] == "bash"
    assert denied["isError"] is True
    assert denied["error"]["code"] == "DENIED"


@pytest.mark.parametrize(
    ("interpreter", "shown"),
    [("sync", []), ("asyncio", []), ("trio", []), ("sync", ["--verbose"])],
)
def test_replaying_the_log_prints_the_live_output_byte_for_byte(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, interpreter: str, shown: list[str]
) -> None:
    log = str(tmp_path / "demo.log")
    live = toolfx(capsys, "demo", "--no-color", "--interpreter", interpreter, "--log", log, *shown)
    assert live.code == 0
    replayed = toolfx(capsys, "replay", log, "--no-color", *shown)
    assert replayed.code == 0
    assert replayed.out == live.out
    assert f"toolfx session · {interpreter} · tools as both" in live.out
    replayed_json = toolfx(capsys, "replay", log, "--json")
    assert len(replayed_json.out.splitlines()) == 13  # 11 calls and the program's 2


def test_the_installed_script_runs_the_demo_honouring_no_color() -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [TOOLFX, "demo"],
        capture_output=True,
        text=True,
        env=env,
        timeout=SAFETY_NET,  # a hang guard only
        check=False,
        start_new_session=True,  # no controlling terminal, wherever the tests run
    )
    assert done.returncode == 0, done.stderr
    assert "11 calls: 9 succeeded, 2 failed" in done.stdout
    assert "\x1b[" not in done.stdout
