"""A session log that cannot be written: one error line, exit 1, whole lines only, nothing
unrecorded run; and a `--log` that names an input of the run is refused before anything runs."""

from __future__ import annotations

import errno
import os
import resource
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.support import TOOLFX, FillingFile, toolfx, write_session
from tests.support import SAFETY_NET
from toolfx.core.records import ToolCallRecord
from toolfx.interpreters.cli._exits import EXIT_BAD_INPUT
from toolfx.interpreters.cli._log import (
    INTERPRETERS,
    Interpreter,
    LogError,
    SessionHeader,
    TurnRecord,
    log_line,
    read_log,
)
from toolfx.interpreters.cli._log_file import LogFile, LogWriteError

WRITE_A = {
    "calls": [{"id": "w1", "name": "write", "arguments": {"path": "a.txt", "content": "A\n"}}]
}
WRITE_B = {
    "calls": [{"id": "w2", "name": "write", "arguments": {"path": "b.txt", "content": "B\n"}}]
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


class UntruncatableFile(FillingFile):
    """A full disk under a file that cannot be cut back (like a pipe or a device)."""

    def truncate(self, size: int | None = None) -> int:
        raise OSError(errno.EINVAL, "Invalid argument")


# The log file ---------------------------------------------------------------------------------


def test_a_line_cut_short_by_a_full_disk_is_taken_back(tmp_path: Path) -> None:
    path = tmp_path / "session.log"
    header, turn = SessionHeader("/ws", "sync"), TurnRecord(1, 1)
    room = len(log_line(header)) + 1 + 10  # the header fits, ten bytes of the turn mark do
    with FillingFile(path, room) as file:
        log = LogFile(file, str(path))
        log.append(log_line(header))
        with pytest.raises(LogWriteError) as caught:
            log.append(log_line(turn))
        assert path.read_text(encoding="utf-8") == log_line(header) + "\n"
        assert str(caught.value) == (
            f"cannot write the log {path}: [Errno 28] No space left on device "
            "(it keeps the 1 records before, each a whole line)"
        )
        file.room = 1000  # space again: the log stays failed, and writes nothing more
        with pytest.raises(LogWriteError, match="No space left"):
            log.append(log_line(turn))
        with pytest.raises(LogWriteError, match="No space left"):
            log.check()
    assert path.read_text(encoding="utf-8") == log_line(header) + "\n"


def test_a_log_that_cannot_be_cut_back_says_its_last_line_may_be_partial(tmp_path: Path) -> None:
    path = tmp_path / "session.log"
    with UntruncatableFile(path, 5) as file:
        log = LogFile(file, str(path))
        with pytest.raises(LogWriteError, match="its last line may be cut short"):
            log.append(log_line(TurnRecord(1, 1)))


def test_a_closed_log_fails_with_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "session.log"
    file = open(path, "wb", buffering=0)  # noqa: SIM115
    log = LogFile(file, str(path))
    log.append(log_line(TurnRecord(1, 1)))
    file.close()
    with pytest.raises(LogWriteError, match="I/O operation on closed file"):
        log.append(log_line(TurnRecord(2, 1)))
    with pytest.raises(LogWriteError, match="closed file"):  # the log stays failed
        log.check()


def test_a_record_with_unicode_line_separators_reads_back_as_one_line() -> None:
    record = ToolCallRecord("c1", "c1", "write", {"content": "a\u2028b\u2029c\x85d\x1ce"})
    text = log_line(SessionHeader("/ws", "sync")) + "\n" + log_line(record) + "\n"
    assert read_log(text)[1] == (record,)


# The command ----------------------------------------------------------------------------------


def test_a_full_disk_is_one_error_line_and_exit_1_before_anything_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    session = write_session(tmp_path / "s.jsonl", WRITE_A)
    ran = toolfx(
        capsys, "run", session, "--workspace", str(workspace), "--yes", "--log", "/dev/full"
    )
    assert ran.code == 1
    assert ran.err.splitlines() == [
        "toolfx: cannot write the log /dev/full: [Errno 28] No space left on device "
        "(its last line may be cut short: the log cannot be truncated)"
    ]
    assert not (workspace / "a.txt").exists()


@pytest.mark.parametrize("interpreter", list(INTERPRETERS.values()))
def test_a_disk_that_fills_up_mid_session_stops_it_with_whole_lines_only(
    tmp_path: Path, workspace: Path, interpreter: Interpreter
) -> None:
    session = write_session(tmp_path / "s.jsonl", WRITE_A, WRITE_B)
    log = tmp_path / "session.log"
    header = log_line(SessionHeader(str(workspace), interpreter))
    turn = log_line(TurnRecord(1, 1))
    room = len(header) + len(turn) + 2 + 20  # the `tool/call` of w1 fits only in part

    def file_size_limit() -> None:  # a write past the limit fails with EFBIG, not a signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (room, room))

    argv = [TOOLFX, "run", session, "--workspace", str(workspace), "--yes", "--log", str(log)]
    argv += ["--interpreter", interpreter]
    done = subprocess.run(
        argv,
        preexec_fn=file_size_limit,
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,  # a hang guard only
        check=False,
        start_new_session=True,  # no controlling terminal, wherever the tests run
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"toolfx: cannot write the log {log}: [Errno 27] File too large "
        "(it keeps the 2 records before, each a whole line)"
    ]
    assert log.read_text(encoding="utf-8") == f"{header}\n{turn}\n"
    assert not (workspace / "a.txt").exists()  # its `tool/call` could not be written
    assert not (workspace / "b.txt").exists()  # the session stopped


@pytest.mark.parametrize("how", ["same path", "relative", "symbolic link", "hard link"])
def test_a_log_naming_the_session_file_is_refused_before_anything_runs(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    session = write_session(tmp_path / "s.jsonl", WRITE_A)
    before = Path(session).read_bytes()
    monkeypatch.chdir(tmp_path)
    log = {"same path": session, "relative": "./s.jsonl"}.get(how, str(tmp_path / "other"))
    if how == "symbolic link":
        os.symlink(session, log)
    elif how == "hard link":
        os.link(session, log)
    ran = toolfx(capsys, "run", session, "--workspace", str(workspace), "--yes", "--log", log)
    assert ran.code == 2
    assert ran.err.splitlines() == [
        f"toolfx: the log {log} is the session file {session}: writing it would destroy it"
    ]
    assert Path(session).read_bytes() == before
    assert not (workspace / "a.txt").exists()


def test_a_log_naming_the_rules_file_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    session = write_session(tmp_path / "s.jsonl", WRITE_A)
    rules = tmp_path / "rules.json"
    rules.write_text("[]")
    argv = ["run", session, "--workspace", str(workspace), "--rules", str(rules)]
    ran = toolfx(capsys, *argv, "--log", str(rules))
    assert ran.code == 2
    assert "is the rules file" in ran.err
    assert rules.read_text() == "[]"


# A last line cut short (a second Ctrl-C ends the process at once) -----------------------------


def torn_log() -> tuple[bytes, bytes]:
    """A log's whole lines, and the last line that follows them (a call whose arguments hold
    characters of two and three bytes)."""
    header, turn = SessionHeader("/nowhere", "sync"), TurnRecord(1, 2)
    first = ToolCallRecord("r1", "r1", "read", {"path": "a.txt"})
    last = ToolCallRecord("r2", "r2", "write", {"path": "é.txt", "content": "€" * 40})
    whole = "".join(log_line(record) + "\n" for record in (header, turn, first))
    return whole.encode(), log_line(last).encode()


def test_a_last_line_cut_short_is_left_out_and_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole, last = torn_log()
    before = tmp_path / "before.log"
    before.write_bytes(whole)
    expected = toolfx(capsys, "replay", str(before), "--no-color")
    assert expected.code == 0
    assert expected.err == ""
    inside_a_character = last.index("€".encode()) + 1
    for end in sorted({1, 2, 40, inside_a_character, inside_a_character + 1, len(last) - 1}):
        log = tmp_path / f"cut-{end}.log"
        log.write_bytes(whole + last[:end])
        replayed = toolfx(capsys, "replay", str(log), "--no-color")
        assert (replayed.code, replayed.out) == (0, expected.out), end
        assert replayed.err.count("\n") == 1, replayed.err
        assert f"the last line of the log {log} (line 4) was cut short" in replayed.err


def test_a_whole_last_line_without_its_newline_is_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole, last = torn_log()
    log = tmp_path / "s.log"
    log.write_bytes(whole + last)
    replayed = toolfx(capsys, "replay", str(log), "--no-color")
    assert (replayed.code, replayed.err) == (0, "")
    assert "write · r2" in replayed.out


@pytest.mark.parametrize(
    ("cut", "reason"),
    [
        (lambda whole, last: whole[:-20] + b"\n" + last + b"\n", "line 3: not JSON"),  # the middle
        (lambda whole, last: whole + last[:30] + b"\n", "line 4: not JSON"),  # ended by a newline
        (lambda whole, last: whole[:-10] + b"\xe2\x82\n" + last, "not UTF-8 text (at byte"),
        (lambda whole, last: whole.split(b"\n")[0][:20], "line 1: not JSON"),  # the header alone
    ],
    ids=["middle", "ended", "bad-utf8-in-a-whole-line", "header"],
)
def test_a_bad_line_anywhere_else_is_still_an_error_naming_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    cut: Callable[[bytes, bytes], bytes],
    reason: str,
) -> None:
    log = tmp_path / "s.log"
    log.write_bytes(cut(*torn_log()))
    replayed = toolfx(capsys, "replay", str(log), "--no-color")
    assert (replayed.code, replayed.out) == (EXIT_BAD_INPUT, "")
    assert reason in replayed.err


def test_a_reader_that_keeps_no_cut_line_refuses_it() -> None:
    whole, last = torn_log()
    with pytest.raises(LogError, match=r"^line 4: not JSON"):
        read_log((whole + last[:30]).decode())
    cut: list[int] = []
    header, records = read_log((whole + last[:30]).decode(), cut.append)
    assert (header.workspace, len(records), cut) == ("/nowhere", 2, [4])
