"""Interactive approvals in a real pseudo-terminal: once, always (remembered), reject, and reject
with feedback, under every interpreter."""

from __future__ import annotations

from pathlib import Path

import pexpect
import pytest

from tests.cli.support import spawn_toolfx, write_session


def write(call_id: str, path: str, content: str) -> dict[str, object]:
    return {"id": call_id, "name": "write", "arguments": {"path": path, "content": content}}


@pytest.mark.parametrize("interpreter", ["sync", "asyncio", "trio"])
def test_asks_are_answered_at_the_terminal(tmp_path: Path, interpreter: str) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    session = write_session(
        tmp_path / "session.jsonl",
        {"calls": [write("w1", "a.txt", "A1")]},
        {"calls": [write("w2", "b.txt", "B1")]},
        {
            "calls": [
                write("w3", "b.txt", "B2"),
                write("w4", "c.txt", "C"),
                write("w5", "d.txt", "D"),
            ]
        },
    )
    child, transcript = spawn_toolfx(
        "run", session, "--workspace", str(workspace), "--no-color", "--interpreter", interpreter
    )
    for answer in ["o", "a", "r", "f"]:
        child.expect(r"Allow\? \[o\]nce, \[a\]lways, \[r\]eject, reject with \[f\]eedback")
        child.sendline(answer)
    child.expect("Feedback for the model")
    child.sendline("write e.txt instead")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    out = transcript.getvalue().replace("\r\n", "\n")
    assert out.count("Allow? [o]nce") == 4  # w3 asked nothing: b.txt was allowed always
    for line in [
        "approval write · w1: edit a.txt (write a.txt) → allowed once",
        "approval write · w2: edit b.txt (write b.txt) → allowed always",
        "approval write · w4: edit c.txt (write c.txt) → rejected",
        "approval write · w5: edit d.txt (write d.txt) → rejected, saying: write e.txt instead",
        "5 calls: 3 succeeded, 2 failed (DENIED 2)",
    ]:
        assert line in out, line
    assert (workspace / "a.txt").read_text() == "A1"
    assert (workspace / "b.txt").read_text() == "B2"
    assert not (workspace / "c.txt").exists()
    assert not (workspace / "d.txt").exists()


def test_a_long_turn_shows_a_progress_bar_that_leaves_nothing_behind(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    calls = [{"id": f"g{n}", "name": "glob", "arguments": {"pattern": "*"}} for n in range(6)]
    session = write_session(tmp_path / "session.jsonl", {"calls": calls})
    child, transcript = spawn_toolfx(
        "run", session, "--workspace", str(workspace), "--no-color", width=120
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    out = transcript.getvalue()
    assert "6/6" in out  # drawn on the terminal ...
    assert "\x1b[2K" in out  # ... and erased
    assert "6 calls: 6 succeeded, 0 failed" in out
