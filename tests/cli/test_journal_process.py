"""`toolfx run --journal` as real processes: killed with SIGKILL in the middle of a bash call,
then run again (the call is in doubt, never run twice, the session completes); asks deferred,
answered by `toolfx approve` from other processes (one while a run holds the journal open), then
the resuming run runs exactly the approved call, once."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.cli.support import TOOLFX, write_session
from tests.support import SAFETY_NET

INTERPRETERS = ["sync", "asyncio"]

BLOCKING_TIMEOUT = 600
"""The blocking bash call's own timeout (the most bash allows): it is killed long before."""


def bash(call_id: str, command: str) -> dict[str, Any]:
    arguments = {"command": command, "timeout": BLOCKING_TIMEOUT}
    return {"id": call_id, "name": "bash", "arguments": arguments}


def start(*argv: str) -> subprocess.Popen[bytes]:
    """`toolfx ARGV` in a process group of its own (killed as a whole), output discarded."""
    return subprocess.Popen(
        [TOOLFX, *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def finish(*argv: str) -> subprocess.CompletedProcess[str]:
    """`toolfx ARGV` run to its end; its exit status and output."""
    return subprocess.run(
        [TOOLFX, *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,  # only against a hang
        check=False,
        start_new_session=True,  # no controlling terminal: no one is asked, wherever tests run
    )


def wait_for(signal_path: Path, process: subprocess.Popen[bytes]) -> None:
    """Block until the bash call of `process` writes a line into the FIFO `signal_path` (made
    here): no polling, no clock. If `process` ends first, a watcher opens the FIFO itself, so
    the read ends with nothing and the test fails saying so."""
    os.mkfifo(signal_path)

    def unblock() -> None:
        process.wait()
        # the reader waits in open or in read: a writer's open and close free it (once the line
        # came, the FIFO is gone and there is nothing to free)
        with contextlib.suppress(FileNotFoundError):
            os.close(os.open(signal_path, os.O_WRONLY))

    threading.Thread(target=unblock, daemon=True).start()
    with open(signal_path, "rb") as reader:
        line = reader.read()
    signal_path.unlink()
    assert line == b"ready\n", f"toolfx ended ({process.returncode}) before its call was ready"


def kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process's whole group, and reap it."""
    os.killpg(process.pid, signal.SIGKILL)
    assert process.wait(timeout=SAFETY_NET) == -signal.SIGKILL


def results(out: str) -> dict[str, dict[str, Any]]:
    """The `--json` results by call id."""
    return {line["callId"]: line for line in map(json.loads, out.splitlines())}


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_a_run_killed_in_a_bash_call_continues_and_never_runs_it_twice(
    tmp_path: Path, interpreter: str
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    journal = str(tmp_path / "journal.db")
    write = {"id": "w1", "name": "write", "arguments": {"path": "before.txt", "content": "B\n"}}
    blocking = bash("b1", "echo one >> appended.txt && echo ready > started && sleep 600")
    session = write_session(
        tmp_path / "session.jsonl",
        {"calls": [write, blocking]},
        {"calls": [bash("b2", "echo two >> after.txt")]},
        {"calls": [{"id": "r1", "name": "read", "arguments": {"path": "after.txt"}}]},
    )
    argv = ["run", session, "--workspace", str(workspace), "--journal", journal, "--yes"]
    argv += ["--interpreter", interpreter, "--json"]

    crashed = start(*argv)
    wait_for(workspace / "started", crashed)
    kill(crashed)
    assert (workspace / "appended.txt").read_text() == "one\n"
    assert not (workspace / "after.txt").exists()

    log = tmp_path / "rerun.jsonl"
    rerun = finish(*argv, "--log", str(log))
    assert rerun.returncode == 0, rerun.stderr
    assert (workspace / "appended.txt").read_text() == "one\n"  # one line: not run again
    shown = results(rerun.stdout)
    assert set(shown) == {"w1", "b1", "b2", "r1"}  # a turn's replays are shown after its others
    assert shown["w1"]["replayed"] is True
    assert shown["b1"]["tool"] == "bash"
    assert shown["b1"]["error"]["code"] == "IN_DOUBT"
    assert "may already have run" in shown["b1"]["content"]
    assert not shown["b2"]["isError"]
    assert not shown["r1"]["isError"]
    assert "two" in shown["r1"]["content"]
    assert "call b1 (bash) may already have run" in rerun.stderr
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    in_doubt = [r for r in logged if r.get("event") == "tool/result" and r["callId"] == "b1"]
    assert [r["result"]["error"]["code"] for r in in_doubt] == ["IN_DOUBT"]

    again = finish(*argv)  # the journal now settles every call: all replayed, nothing runs
    assert again.returncode == 0, again.stderr
    assert all(line.get("replayed") for line in results(again.stdout).values())
    assert (workspace / "appended.txt").read_text() == "one\n"
    assert (workspace / "after.txt").read_text() == "two\n"


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_deferred_asks_answered_from_other_processes_run_exactly_once(
    tmp_path: Path, interpreter: str
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    journal = str(tmp_path / "journal.db")
    rules = tmp_path / "rules.json"
    rules.write_text('[{"permission": "bash", "pattern": "*", "action": "ask"}]')
    session = write_session(
        tmp_path / "session.jsonl",
        {"calls": [bash("a1", "echo approved >> log.txt")]},
        {"calls": [bash("a2", "echo rejected >> log.txt")]},
        {"calls": [bash("a3", "echo unanswered >> log.txt")]},
    )
    argv = ["run", session, "--workspace", str(workspace), "--journal", journal]
    argv += ["--rules", str(rules), "--interpreter", interpreter, "--json", "--defer-asks"]

    deferred = finish(*argv)
    assert deferred.returncode == 3, deferred.stderr
    assert {r["error"]["code"] for r in results(deferred.stdout).values()} == {"APPROVAL_PENDING"}
    for call_id in ("a1", "a2", "a3"):
        assert f"toolfx approve {journal} {call_id} once" in deferred.stderr
    assert not (workspace / "log.txt").exists()

    # another run holds the journal open (blocked in a bash call) while the asks are answered
    holder = write_session(
        tmp_path / "holder.jsonl", {"calls": [bash("h1", "echo ready > held && sleep 600")]}
    )
    holding = start("run", holder, "--workspace", str(workspace), "--journal", journal, "--yes")
    try:
        wait_for(workspace / "held", holding)
        assert finish("approve", journal, "a1", "once").returncode == 0
        feedback = ("--feedback", "append something else")
        assert finish("approve", journal, "a2", "reject", *feedback).returncode == 0
        unknown = finish("approve", journal, "a1", "once")  # answered already: no ask waits
        assert unknown.returncode == 4
        assert f"toolfx approve {journal} a3 once" in unknown.stderr
    finally:
        kill(holding)
    listed = finish("approve", journal)
    assert listed.returncode == 0
    assert "1 ask waits" in listed.stdout
    assert "a3 · bash asks for bash on: echo unanswered >> log.txt" in listed.stdout

    resumed = finish(*argv)
    assert resumed.returncode == 3, resumed.stderr  # a3 still waits
    shown = results(resumed.stdout)
    assert not shown["a1"]["isError"]
    assert shown["a2"]["error"]["code"] == "DENIED"
    assert "append something else" in shown["a2"]["content"]
    assert shown["a3"]["error"]["code"] == "APPROVAL_PENDING"
    assert shown["a3"]["replayed"] is True
    assert (workspace / "log.txt").read_text() == "approved\n"

    again = finish(*argv)
    assert again.returncode == 3
    assert all(line.get("replayed") for line in results(again.stdout).values())
    assert (workspace / "log.txt").read_text() == "approved\n"  # exactly once
