"""Terminal safety end to end: a session over a workspace whose folder, file names and contents
are hostile, calling every built-in leaf and a tool that does not exist, run at a real colour
terminal (asks answered there, running calls drawn live), and replayed from its log with every
card (`--verbose`): nothing but toolfx's own styling (and the live region's cursor moves)
reaches the terminal, and the replay prints the live run's bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pexpect
import pytest

from tests.cli.support import spawn_toolfx, toolfx, write_session
from tests.security.terminal_support import (
    HOSTILE,
    assert_only_own_styling,
    plain,
    without_live_controls,
)

TITLE: Final = HOSTILE["window title"]
NAME: Final = f"{TITLE}{HOSTILE['bidi override']}.txt"
"""A file name that tries to set the window title and reverse its own text."""
CONTENT: Final = "".join(f"{payload}\n" for payload in HOSTILE.values() if "\x00" not in payload)
"""A text file (no NUL, which would make it binary) holding every other hostile string."""
COMMAND: Final = (  # ESC in the command itself, then output full of raw controls
    f"echo '{HOSTILE['clear screen']}' && "
    r"printf '\033]0;pwned\007 \302\2332J \342\200\256rev \rover\bdone\n'"
)


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def session(tmp_path: Path) -> str:
    return write_session(
        tmp_path / "session.jsonl",
        {
            "calls": [
                call("r1", "read", path=NAME),
                call("g1", "glob", pattern="*"),
                call("s1", "grep", regex="pwned"),
                call("r2", "read", path=f"missing {HOSTILE['clear screen']}"),
            ]
        },
        {
            "calls": [
                call("w1", "write", path=f"new {NAME}", content=CONTENT + HOSTILE["NUL and DEL"]),
                call("e1", "edit", path=NAME, old=HOSTILE["C1 CSI"], new=HOSTILE["C1 OSC"]),
            ]
        },
        {"calls": [call("b1", "bash", command=COMMAND, description=HOSTILE["carriage return"])]},
        {"calls": [call(HOSTILE["C1 OSC"], f"no-such-tool{TITLE}", x=HOSTILE["hyperlink"])]},
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / f"ws {HOSTILE['clear screen']}{HOSTILE['bidi override']}"
    root.mkdir()
    (root / NAME).write_text(CONTENT, encoding="utf-8")
    return root


def shown(out: str) -> None:
    """Each leaf's card was printed, with the hostile text in visible form."""
    for text in [
        NAME,
        *HOSTILE.values(),  # read, grep and the new file's diff show them all
        HOSTILE["C1 OSC"],  # the edit
        COMMAND,
        "\x1b]0;pwned\x07 \x9b2J \u202erev \rover\bdone",  # the command's output
        f"no-such-tool{TITLE}",
    ]:
        assert_only_own_styling(out, text)


def test_a_hostile_session_at_a_colour_terminal_shows_only_toolfx_styling(
    tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)
    log = tmp_path / "session.log"
    child, transcript = spawn_toolfx(
        "run", session(tmp_path), "--workspace", str(workspace), "--log", str(log)
    )
    asks = 0
    while child.expect([r"\[f\]eedback", pexpect.EOF]) == 0:
        child.send("o")  # one key: "o\n" in one read is not one key
        asks += 1
    child.close()
    assert child.exitstatus == 0
    assert asks >= 2  # write and edit (and bash, unless a sandbox holds it) asked here
    live = transcript.getvalue().replace("\r\n", "\n")  # the terminal's own line ends
    assert "\x1b[" in live  # in colour
    assert_only_own_styling(without_live_controls(live))
    assert_only_own_styling(without_live_controls(live), COMMAND, f"no-such-tool{TITLE}")
    assert (workspace / NAME).read_bytes().decode() == CONTENT.replace(
        HOSTILE["C1 CSI"], HOSTILE["C1 OSC"]
    )

    replay, transcript = spawn_toolfx("replay", str(log), "--verbose")
    replay.expect(pexpect.EOF)
    replay.close()
    assert replay.exitstatus == 0
    replayed = transcript.getvalue().replace("\r\n", "\n")
    assert_only_own_styling(replayed)
    shown(replayed)


@pytest.mark.parametrize("interpreter", ["sync", "asyncio", "trio"])
def test_a_hostile_session_replays_byte_for_byte_with_no_escape_at_all(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, interpreter: str
) -> None:
    log = str(tmp_path / "session.log")
    argv = ["run", session(tmp_path), "--workspace", str(workspace), "--yes", "--log", log]
    argv += ["--interpreter", interpreter]
    live = toolfx(capsys, *argv, "--no-color")
    assert live.code == 0
    assert "\x1b" not in live.out
    assert_only_own_styling(live.out, COMMAND, f"no-such-tool{TITLE}")
    replayed = toolfx(capsys, "replay", log, "--no-color")
    assert replayed.out == live.out
    cards = toolfx(capsys, "replay", log, "--no-color", "--verbose").out
    assert "\x1b" not in cards
    shown(cards)
    results = toolfx(capsys, "replay", log, "--json").out  # JSON lines: ASCII only
    assert results.isascii()
    assert len([json.loads(line) for line in results.splitlines()]) == 8
    assert plain(results) == results
