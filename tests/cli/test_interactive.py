"""Live display in a real pseudo-terminal (asks answered there: tests/cli/test_approvals_pty.py)."""

from __future__ import annotations

from pathlib import Path

import pexpect

from tests.cli.support import spawn_toolfx, write_session


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
