"""`toolfx demo`: every card kind, an approval, a denial, a failure and bounded output; its log
replays to the same bytes under every interpreter."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli.support import TOOLFX, toolfx

INTERPRETERS = ["sync", "asyncio", "trio"]


def test_the_demo_shows_every_kind_of_card_and_outcome(capsys: pytest.CaptureFixture[str]) -> None:
    ran = toolfx(capsys, "demo", "--no-color")
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
        "approval edit · edit-1: edit src/greet.py (edit src/greet.py) → allowed once",
        "a rule denies rm -rf",  # the denial
        "src/test_greet.py does not exist",  # the failing call
        "of 2400; more from line",  # bounded read of the long log
        "bytes not kept",  # bounded command output
        "10 calls: 8 succeeded, 2 failed (DENIED 1, TOOL_ERROR 1)",
        "1 approval asked: allowed once 1",
    ]:
        assert shown in out, shown
    assert "\x1b[" not in out


def test_the_demo_prints_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    ran = toolfx(capsys, "demo", "--json")
    results = [json.loads(line) for line in ran.out.splitlines()]
    assert len(results) == 10
    denied = next(result for result in results if result["callId"] == "bash-2")
    assert denied["tool"] == "bash"
    assert denied["isError"] is True
    assert denied["error"]["code"] == "DENIED"


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_replaying_the_log_prints_the_live_output_byte_for_byte(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, interpreter: str
) -> None:
    log = str(tmp_path / "demo.log")
    live = toolfx(capsys, "demo", "--no-color", "--interpreter", interpreter, "--log", log)
    assert live.code == 0
    replayed = toolfx(capsys, "replay", log, "--no-color")
    assert replayed.code == 0
    assert replayed.out == live.out
    assert f"toolfx session · {interpreter}" in live.out
    replayed_json = toolfx(capsys, "replay", log, "--json")
    assert len(replayed_json.out.splitlines()) == 10


def test_the_installed_script_runs_the_demo_honouring_no_color() -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [TOOLFX, "demo"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "10 calls: 8 succeeded, 2 failed" in done.stdout
    assert "\x1b[" not in done.stdout
