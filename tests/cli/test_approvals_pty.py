"""Asks answered at a real pseudo-terminal with one key (once, always, reject, reject with
feedback), read from the controlling terminal whatever stdout is; the prompt shows the change in
its file context with the file's real line numbers; without a controlling terminal no one
approves, and both the model and the person are told so."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.cli.support import TOOLFX, spawn_toolfx, write_session
from tests.support import SAFETY_NET
from toolfx.core.records import ToolApprovalRecord, ToolResultRecord
from toolfx.core.runtime import RejectedWithFeedback
from toolfx.interpreters.cli._log import read_log

QUESTION = r"Allow\? \[o\]nce, \[a\]lways, \[r\]eject, reject with \[f\]eedback: "


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def logged(log: Path) -> tuple[dict[str, ToolApprovalRecord], dict[str, ToolResultRecord]]:
    """The log's approvals and results by call id."""
    _, records = read_log(log.read_text(encoding="utf-8"))
    approvals = {r.call_id: r for r in records if isinstance(r, ToolApprovalRecord)}
    results = {r.call_id: r for r in records if isinstance(r, ToolResultRecord)}
    return approvals, results


def ended(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus is not None
    return child.exitstatus


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.mark.parametrize("interpreter", ["sync", "asyncio", "trio"])
def test_one_key_answers_once_always_reject_and_feedback(
    tmp_path: Path, workspace: Path, interpreter: str
) -> None:
    session = write_session(
        tmp_path / "session.jsonl",
        {"calls": [call("w1", "write", path="a.txt", content="A1")]},
        {"calls": [call("w2", "write", path="b.txt", content="B1")]},
        {
            "calls": [
                call("w3", "write", path="b.txt", content="B2"),
                call("w4", "write", path="c.txt", content="C"),
                call("w5", "write", path="d.txt", content="D"),
            ]
        },
    )
    log = tmp_path / "session.log"
    child, transcript = spawn_toolfx(
        "run", session, "--workspace", str(workspace), "--no-color", "--log", str(log),
        "--interpreter", interpreter,
    )  # fmt: skip
    for key in "oar":
        child.expect(QUESTION)
        child.send(key)  # one key, no Enter
    child.expect(QUESTION)
    child.send("f")
    child.expect("Feedback for the model: ")
    child.sendline("no\x15write x\x7fe.txt\x1b[D instead")  # Ctrl-U, Backspace; no arrow key
    assert ended(child) == 0

    out = transcript.getvalue().replace("\r\n", "\n")
    assert out.count("Allow? [o]nce") == 4  # w3 asked nothing: b.txt was allowed always
    assert "always will allow edit, for the rest of this session: b.txt" in out
    approvals, results = logged(log)
    assert {call_id: a.reply for call_id, a in approvals.items()} == {
        "w1": "allowed-once",
        "w2": "allowed-always",
        "w4": "rejected",
        "w5": RejectedWithFeedback("write e.txt instead"),
    }
    assert approvals["w2"].always == ("b.txt",)
    assert [results[c].result.error for c in ("w1", "w2", "w3")] == [None, None, None]
    rejected, corrected = results["w4"].result.error, results["w5"].result.error
    assert rejected is not None
    assert "the user rejected c.txt" in rejected.message
    assert corrected is not None
    assert corrected.message.endswith("saying: write e.txt instead")
    assert (workspace / "a.txt").read_text() == "A1"
    assert (workspace / "b.txt").read_text() == "B2"
    assert not (workspace / "c.txt").exists()
    assert not (workspace / "d.txt").exists()


def test_another_key_asks_again_naming_the_keys_and_end_of_input_rejects(
    tmp_path: Path, workspace: Path
) -> None:
    session = write_session(
        tmp_path / "session.jsonl",
        {"calls": [call("w1", "write", path="a.txt", content="A")]},
        {"calls": [call("w2", "write", path="b.txt", content="B")]},
    )
    log = tmp_path / "session.log"
    child, transcript = spawn_toolfx(
        "run", session, "--workspace", str(workspace), "--no-color", "--log", str(log)
    )
    child.expect(QUESTION)
    child.send("x")
    child.expect(
        re.escape(
            "x is not an answer: press o (once), a (always), r (reject) or f (reject with feedback)"
        )
    )
    child.expect(QUESTION)
    child.send("o")
    child.expect(QUESTION)
    child.sendeof()  # Ctrl-D
    child.expect(re.escape("rejected (end of input)"))
    assert ended(child) == 0
    approvals, _ = logged(log)
    assert approvals["w1"].reply == "allowed-once"
    assert approvals["w2"].reply == "rejected"
    assert (workspace / "a.txt").read_text() == "A"
    assert not (workspace / "b.txt").exists()
    assert transcript.getvalue().count("Allow? [o]nce") == 3


def test_the_prompt_reaches_the_terminal_when_stdout_is_piped(
    tmp_path: Path, workspace: Path
) -> None:
    session = write_session(
        tmp_path / "session.jsonl", {"calls": [call("w1", "write", path="a.txt", content="A")]}
    )
    out = tmp_path / "out.jsonl"
    command = f"{TOOLFX} run {session} --workspace {workspace} --no-color --json | cat > {out}"
    child = pexpect.spawn(
        "bash", ["-c", command], timeout=SAFETY_NET, encoding="utf-8", dimensions=(50, 200)
    )
    child.expect("edit · w1|write · w1")
    child.expect(QUESTION)
    child.send("o")
    assert ended(child) == 0
    [result] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert result["callId"] == "w1"
    assert result["isError"] is False
    assert "Allow?" not in out.read_text(encoding="utf-8")
    assert (workspace / "a.txt").read_text() == "A"


def git_hunk_headers(tmp_path: Path, before: str, after: str) -> list[str]:
    """The hunk headers `git diff` writes for the change (without its function context)."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    copy = tmp_path / "git"
    copy.mkdir()
    (copy / "old").write_text(before, encoding="utf-8")
    (copy / "new").write_text(after, encoding="utf-8")
    diffed = subprocess.run(
        [git, "diff", "--no-index", "--no-color", "old", "new"],
        cwd=copy,
        capture_output=True,
        text=True,
        check=False,
        timeout=SAFETY_NET,
    )
    assert diffed.returncode == 1, diffed.stderr  # 1: the files differ
    return re.findall(r"^(@@ -\S+ \+\S+ @@)", diffed.stdout, re.MULTILINE)


def test_the_pending_edit_shows_the_change_in_its_file_with_git_s_line_numbers(
    tmp_path: Path, workspace: Path
) -> None:
    old, new = "line 20\n", "line twenty\nline twenty-one\n"
    before = "".join(f"line {n}\n" for n in range(1, 41))
    after = before.replace(old, new)
    (workspace / "f.txt").write_text(before, encoding="utf-8")
    headers = git_hunk_headers(tmp_path, before, after)
    assert headers == ["@@ -17,7 +17,8 @@"]  # the middle of the file: not counted from 1
    session = write_session(
        tmp_path / "session.jsonl",
        {"calls": [call("r1", "read", path="f.txt")]},
        {"calls": [call("e1", "edit", path="f.txt", old=old, new=new)]},
    )
    child, _ = spawn_toolfx("run", session, "--workspace", str(workspace), "--no-color")
    child.expect("╭─ approval")
    child.expect(QUESTION)
    prompt = child.before
    child.send("o")
    assert ended(child) == 0
    shown = [line.strip("│ \r") for line in prompt.splitlines()]
    at = shown.index(headers[0])
    assert shown[at - 2 : at + 10] == [
        "--- a/f.txt", "+++ b/f.txt", headers[0],
        "line 17", "line 18", "line 19", "-line 20", "+line twenty", "+line twenty-one",
        "line 21", "line 22", "line 23",
    ]  # fmt: skip
    assert (workspace / "f.txt").read_text(encoding="utf-8") == after


def test_without_a_controlling_terminal_no_one_approves_and_both_sides_are_told(
    tmp_path: Path, workspace: Path
) -> None:
    session = write_session(
        tmp_path / "session.jsonl",
        {"calls": [call("w1", "write", path="a.txt", content="A")]},
        {"calls": [call("w2", "write", path="b.txt", content="B")]},
    )
    log = tmp_path / "session.log"
    argv = [TOOLFX, "run", session, "--workspace", str(workspace), "--json", "--log", str(log)]
    done = subprocess.run(
        argv,
        start_new_session=True,  # no controlling terminal, wherever the tests run
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "toolfx: no one could approve 2 asks (no terminal): use --yes, --deny-asks or run in a"
        " terminal\n"
    )
    shown = [json.loads(line) for line in done.stdout.splitlines()]
    assert [result["error"]["code"] for result in shown] == ["DENIED", "DENIED"]
    told = shown[0]["error"]["message"]
    assert "no one could approve a.txt: no one was there to answer the ask" in told
    assert "rejected" not in told
    approvals, _ = logged(log)
    assert [a.reply for a in approvals.values()] == ["unavailable", "unavailable"]
    assert not (workspace / "a.txt").exists()


@pytest.mark.parametrize("feedback", [False, True], ids=["at the key", "in the feedback"])
@pytest.mark.parametrize("interpreter", ["sync", "asyncio", "trio"])
def test_ctrl_c_at_the_prompt_restores_the_terminal_and_is_passed_on(
    tmp_path: Path, workspace: Path, interpreter: str, feedback: bool
) -> None:
    session = write_session(
        tmp_path / "session.jsonl", {"calls": [call("w1", "write", path="a.txt", content="A")]}
    )
    run = f"{TOOLFX} run {session} --workspace {workspace} --no-color --interpreter {interpreter}"
    child = pexpect.spawn(
        "bash",
        ["-c", f'{run} 2>/dev/null; echo "status=$?"; stty -a'],
        timeout=SAFETY_NET,
        encoding="utf-8",
        dimensions=(50, 200),
    )
    child.expect(QUESTION)
    if feedback:
        child.send("f")
        child.expect("Feedback for the model: ")
        child.send("half a thou")
    child.sendintr()  # Ctrl-C, read as a key while asking (in whichever thread asks)
    child.expect("status=130")  # ended by SIGINT (or exited 130 for it)
    child.expect(pexpect.EOF)
    modes = child.before.split()
    assert {"icanon", "echo", "isig"} <= set(modes)  # the modes were restored (not "-icanon")
    assert not (workspace / "a.txt").exists()


def test_a_terminal_that_hangs_up_at_the_prompt_is_no_one_to_ask(
    tmp_path: Path, workspace: Path
) -> None:
    # as under `nohup`: SIGHUP ignored, stdout and stderr in files; the window is closed while
    # the prompt waits for a key
    session = write_session(
        tmp_path / "session.jsonl",
        {"calls": [call("w1", "write", path="a.txt", content="A")]},
        {"calls": [call("w2", "write", path="b.txt", content="B")]},
    )
    log, out, err = (tmp_path / name for name in ("session.log", "out.txt", "err.txt"))
    script = f'trap "" HUP; exec "$@" >"{out}" 2>"{err}"'
    argv = ["run", session, "--workspace", str(workspace), "--no-color", "--log", str(log)]
    pid, master = pty.fork()
    if pid == 0:  # the child: a session of its own, the pseudo-terminal its controlling one
        os.execvp("sh", ["sh", "-c", script, "sh", TOOLFX, *argv])
    shown = b""
    while b"[f]eedback: " not in shown:  # the prompt waits for a key
        assert select.select([master], [], [], SAFETY_NET)[0], shown
        shown += os.read(master, 4096)
    os.close(master)  # the terminal hangs up
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    assert status == 0, err.read_text()
    assert "Traceback" not in err.read_text()
    assert "no one could approve 2 asks (the terminal hung up)" in err.read_text()
    approvals, results = logged(log)
    assert {c: a.reply for c, a in approvals.items()} == {"w1": "unavailable", "w2": "unavailable"}
    for result in results.values():
        assert result.result.error is not None
        assert "UNEXPECTED" not in str(result.result.error.code)
    assert not (workspace / "a.txt").exists()


def test_a_paste_at_the_prompt_answers_nothing_and_the_question_is_asked_again(
    tmp_path: Path, workspace: Path
) -> None:
    session = write_session(
        tmp_path / "session.jsonl", {"calls": [call("w1", "write", path="a.txt", content="A")]}
    )
    log = tmp_path / "session.log"
    child, _ = spawn_toolfx(
        "run", session, "--workspace", str(workspace), "--no-color", "--log", str(log)
    )
    child.expect(QUESTION)
    child.send("\x1b[200~oooo\x1b]l" + "x" * 100 + "a\x1b\\\x1b[201~")  # pasted keys, a report
    child.expect("ignored input of more than one key")
    child.expect(QUESTION)
    child.send("r")
    assert ended(child) == 0
    approvals, _ = logged(log)
    assert approvals["w1"].reply == "rejected"
    assert not (workspace / "a.txt").exists()
