"""Ctrl-C in a real pseudo-terminal: during a running command (it is killed, its result recorded,
one line, exit 130), a second Ctrl-C while the first still waits for the command to end (exit at
once), at an approval prompt, and in `toolfx mcp serve` (which first says it waits for a client).

Every wait is a rendezvous: the command writes into a FIFO the test reads (so the test knows it
runs), and the test sends Ctrl-C only then; `SAFETY_NET` only turns a hang into a failure.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.cli.processes import fifos, met
from tests.cli.support import spawn_toolfx, write_session
from tests.support import alive, descendants, gone_soon

INTERPRETERS = ["sync", "asyncio", "trio"]

BLOCKING_TIMEOUT = 600
"""The blocking bash call's own timeout (the most bash allows): it is interrupted long before."""


def bash(call_id: str, command: str) -> dict[str, Any]:
    return {"id": call_id, "name": "bash", "arguments": {"command": command, "timeout": 600}}


def logged(log: Path) -> list[dict[str, Any]]:
    """The log's records (every line a whole JSON record)."""
    return [json.loads(line) for line in log.read_text().splitlines()]


def ended(child: pexpect.spawn, transcript: io.StringIO) -> str:
    """Wait for toolfx to end; what it printed, with plain newlines."""
    child.expect(pexpect.EOF)
    child.close()
    return transcript.getvalue().replace("\r\n", "\n")


def notes(out: str) -> list[str]:
    """The lines toolfx printed about itself (`toolfx: ...`)."""
    return re.findall(r"^toolfx: .*$", out, re.MULTILINE)


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_ctrl_c_cancels_the_running_command_records_it_and_exits_130(
    tmp_path: Path, interpreter: str
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (ready,) = fifos(workspace, "ready")
    log = tmp_path / "log.jsonl"
    session = write_session(
        tmp_path / "session.jsonl",
        {"calls": [bash("b1", "echo ready > ready; sleep 1000"), bash("b2", "echo two > two")]},
        {"calls": [bash("b3", "echo three > three")]},
    )
    child, transcript = spawn_toolfx(
        "run", session, "--workspace", str(workspace), "--yes", "--log", str(log),
        "--no-color", "--interpreter", interpreter,
    )  # fmt: skip
    assert met(ready, child.pid) == b"ready\n"
    running = descendants(child.pid)  # the supervisor, the command's bash (and its sleep)
    assert running
    child.sendintr()
    out = ended(child, transcript)

    assert child.exitstatus == 130, out
    assert notes(out) == [
        "toolfx: interrupted; 1 call cancelled, 1 call not started (the log has their results)"
    ]
    assert "Traceback" not in out
    assert not [pid for pid in running if alive(pid)]  # toolfx waited for the command's end
    records = logged(log)
    results = {r["callId"]: r["result"] for r in records if r["event"] == "tool/result"}
    assert set(results) == {"b1", "b2"}  # the second turn never started
    assert results["b1"]["error"]["code"] == "ABORTED"
    assert "interrupted (Ctrl-C)" in results["b1"]["error"]["message"]
    assert results["b2"]["error"]["code"] == "ABORTED_BEFORE_DISPATCH"
    assert [r["turn"] for r in records if r["event"] == "turn"] == [1]
    assert not (workspace / "two").exists()
    assert not (workspace / "three").exists()


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_a_second_ctrl_c_exits_at_once_while_the_first_waits_for_the_command(
    tmp_path: Path, interpreter: str
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    ready, term = fifos(workspace, "ready", "term")
    log = tmp_path / "log.jsonl"
    # bash says when the first Ctrl-C's SIGTERM reaches it, then goes on waiting for a sleep
    # that ignores SIGTERM: the call ends only when the kill grace is over. Unsandboxed: under
    # bubblewrap the command runs in a session of its own, which the SIGTERM to the call's
    # process group does not reach (bubblewrap dies of it, and takes the command with it).
    command = (
        "trap 'echo term > term' TERM; (trap '' TERM; sleep 1000) & echo ready > ready;"
        " while :; do wait; done"
    )
    session = write_session(tmp_path / "session.jsonl", {"calls": [bash("b1", command)]})
    child, transcript = spawn_toolfx(
        "run", session, "--workspace", str(workspace), "--yes", "--log", str(log),
        "--no-color", "--interpreter", interpreter, "--sandbox", "off",
    )  # fmt: skip
    assert met(ready, child.pid) == b"ready\n"
    running = descendants(child.pid)
    child.sendintr()
    # the first is being acted on (bash may get SIGTERM more than once: forwarded and direct)
    assert set(met(term, child.pid).splitlines()) == {b"term"}
    child.sendintr()
    out = ended(child, transcript)

    assert child.exitstatus == 130, out
    assert notes(out) == [
        "toolfx: interrupted again (Ctrl-C); exiting at once without waiting for what still ran"
    ]
    assert "Traceback" not in out
    assert logged(log)[-1]["event"] in {"tool/call", "tool/approval", "tool/result"}  # whole
    # toolfx did not wait: the supervisor ends what it left once it sees toolfx gone
    assert all(gone_soon(pid) for pid in running)


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_ctrl_c_at_an_approval_prompt_cancels_the_asking_call(
    tmp_path: Path, interpreter: str
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    log = tmp_path / "log.jsonl"
    rules = tmp_path / "rules.json"
    rules.write_text('[{"permission": "bash", "pattern": "*", "action": "ask"}]')
    session = write_session(
        tmp_path / "session.jsonl",
        {"calls": [bash("a1", "echo asked > asked")]},
        {"calls": [bash("a2", "echo later > later")]},
    )
    child, transcript = spawn_toolfx(
        "run", session, "--workspace", str(workspace), "--rules", str(rules), "--log", str(log),
        "--no-color", "--interpreter", interpreter,
    )  # fmt: skip
    child.expect(r"\[o\]nce")
    child.sendintr()
    out = ended(child, transcript)

    assert child.exitstatus == 130, out
    assert notes(out) == ["toolfx: interrupted; 1 call cancelled (the log has its result)"]
    assert "Traceback" not in out
    records = logged(log)
    approvals = [r for r in records if r["event"] == "tool/approval"]
    assert [(r["callId"], r["reply"]) for r in approvals] == [("a1", "cancelled")]
    results = {r["callId"]: r["result"] for r in records if r["event"] == "tool/result"}
    assert set(results) == {"a1"}
    assert results["a1"]["error"]["code"] == "ABORTED"  # bash asks from its body
    assert "interrupted (Ctrl-C)" in results["a1"]["error"]["message"]
    assert not (workspace / "asked").exists()
    assert not (workspace / "later").exists()


def test_mcp_serve_says_it_waits_and_ctrl_c_ends_it_with_one_line(tmp_path: Path) -> None:
    child, transcript = spawn_toolfx("mcp", "serve", "--workspace", str(tmp_path))
    child.expect("waiting for an MCP client on stdin and stdout")
    child.sendintr()
    out = ended(child, transcript)

    assert child.exitstatus == 130, out
    assert notes(out) == ["toolfx: interrupted; the MCP server stopped"]
    assert "Traceback" not in out
