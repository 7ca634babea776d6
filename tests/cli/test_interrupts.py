"""Ctrl-C's logic in-process: the first press sets the current signal off the main thread, a
second exits at once, a prompt ends with `cancelled`, the closing line, every call of a turn (in
each session form) on the turn's signal; and `toolfx run` sent a real SIGINT once its bash call
runs, with a log and a journal (both keep the cancelled call)."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.cli.support import toolfx, write_session
from tests.support import SAFETY_NET, approval_request
from toolfx.core.records import ToolResultRecord
from toolfx.core.runtime import ApprovalReply, ApprovalRequest
from toolfx.core.tools import ErrorCode, ToolExecutionSuccess, failed
from toolfx.interpreters.cli._interrupts import (
    AT_ONCE,
    INTERRUPT_REASON,
    Interrupted,
    Interrupts,
    cancelled_line,
)
from toolfx.interpreters.cli._runner import turn_calls
from toolfx.interpreters.cli._session import parse_session
from toolfx.interpreters.journal import SqliteJournal
from toolfx.interpreters.providers import load_catalog


class Exits:
    """A fake `exit_now`: the lines it was given, and an event set at each."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.called = threading.Event()

    def __call__(self, line: str) -> None:
        self.lines.append(line)
        self.called.set()


def cancelled_on(interrupts: Interrupts) -> tuple[threading.Event, list[threading.Thread]]:
    """The current turn's signal watched: an event set when it is, and the thread that set it."""
    cancelled, where = threading.Event(), []

    def seen() -> None:
        where.append(threading.current_thread())
        cancelled.set()

    interrupts.signal().on_cancel(seen)
    return cancelled, where


def test_a_real_sigint_cancels_the_current_signal_on_the_watcher_thread() -> None:
    interrupts = Interrupts(Exits())
    with interrupts.watching():
        cancelled, where = cancelled_on(interrupts)
        os.kill(os.getpid(), signal.SIGINT)  # Python runs the handler before the next line
        assert interrupts.interrupted
        assert cancelled.wait(SAFETY_NET)
    assert where != [threading.main_thread()]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


def test_a_second_press_exits_at_once_and_the_first_only_cancels() -> None:
    exits = Exits()
    interrupts = Interrupts(exits)
    with interrupts.watching():
        cancelled, _ = cancelled_on(interrupts)
        interrupts.press()
        assert cancelled.wait(SAFETY_NET)
        assert exits.lines == []
        interrupts.press()
        assert exits.called.wait(SAFETY_NET)
    assert exits.lines == [AT_ONCE]


@settings(max_examples=25)
@given(presses=st.integers(min_value=0, max_value=6), before=st.integers(min_value=0, max_value=3))
def test_the_first_press_cancels_and_each_later_one_exits(presses: int, before: int) -> None:
    exits = Exits()
    interrupts = Interrupts(exits)
    turns = []
    with interrupts.watching():
        for press in range(presses):
            if press == min(before, presses - 1):  # a turn may start between two presses
                turns.append(interrupts.signal())
            interrupts.press()
        turns.append(interrupts.signal())
    # leaving the block waits for the watcher to have acted on every press
    assert [signal.is_cancelled() for signal in turns] == [presses > 0] * len(turns)
    assert exits.lines == [AT_ONCE] * max(presses - 1, 0)
    assert interrupts.interrupted == (presses > 0)


def test_a_signal_made_after_a_press_is_set_already() -> None:
    interrupts = Interrupts(Exits())
    assert not interrupts.signal().is_cancelled()
    interrupts.press()
    made = interrupts.signal()
    assert made.is_cancelled()
    assert made.reason == INTERRUPT_REASON


def test_ctrl_c_read_at_a_prompt_answers_cancelled_and_counts_as_the_first_press() -> None:
    exits = Exits()
    interrupts = Interrupts(exits)

    def prompt(request: ApprovalRequest) -> ApprovalReply:
        raise KeyboardInterrupt  # as a prompt reading keys does for Ctrl-C

    with interrupts.watching():
        cancelled, _ = cancelled_on(interrupts)
        assert interrupts.answering(prompt)(approval_request()) == "cancelled"
        assert interrupts.interrupted
        assert cancelled.wait(SAFETY_NET)
        interrupts.press()
        assert exits.called.wait(SAFETY_NET)  # the next is the second
    assert exits.lines == [AT_ONCE]


def test_sigint_ends_a_prompt_on_the_main_thread_as_one_press() -> None:
    exits = Exits()
    interrupts = Interrupts(exits)

    def prompt(request: ApprovalRequest) -> ApprovalReply:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the prompt waits
        threading.Event().wait(SAFETY_NET)
        return "allowed-once"

    with interrupts.watching():
        cancelled, _ = cancelled_on(interrupts)
        assert interrupts.answering(prompt)(approval_request()) == "cancelled"
        assert cancelled.wait(SAFETY_NET)
    assert exits.lines == []


def test_no_one_is_asked_once_ctrl_c_was_pressed() -> None:
    interrupts = Interrupts(Exits())
    asked: list[ApprovalRequest] = []

    def prompt(request: ApprovalRequest) -> ApprovalReply:
        asked.append(request)
        return "allowed-once"

    answer = interrupts.answering(prompt)
    assert answer(approval_request()) == "allowed-once"
    interrupts.press()
    assert answer(approval_request()) == "cancelled"
    assert len(asked) == 1


def test_end_says_what_was_cancelled_and_exits_at_once_past_a_blocked_prompt() -> None:
    exits = Exits()
    interrupts = Interrupts(exits)
    interrupts.end(["log"])  # not interrupted: nothing
    aborted = failed(ErrorCode.ABORTED, "`bash` was cancelled")
    unstarted = failed(ErrorCode.ABORTED_BEFORE_DISPATCH, "`read` was cancelled before it started")
    interrupts.settled([aborted, ToolExecutionSuccess(None, ())])  # before any press: not counted
    release, opened = threading.Event(), threading.Event()

    def blocked(request: ApprovalRequest) -> ApprovalReply:
        opened.set()
        release.wait(SAFETY_NET)
        return "rejected"

    prompting = threading.Thread(target=interrupts.answering(blocked), args=(approval_request(),))
    prompting.start()
    try:
        assert opened.wait(SAFETY_NET)
        interrupts.press()
        interrupts.settled([aborted, unstarted, unstarted, ToolExecutionSuccess(None, ())])
        with pytest.raises(Interrupted) as raised:
            interrupts.end(["log", "journal"])
    finally:
        release.set()
        prompting.join()
    line = "interrupted; 1 call cancelled, 2 calls not started (the log and the journal have"
    assert str(raised.value) == f"{line} their results)"
    assert exits.lines == [str(raised.value)]  # the prompt's thread blocks: exit at once


@pytest.mark.parametrize(
    ("cancelled", "unstarted", "kept", "line"),
    [
        (0, 0, ["log"], "interrupted; no call was running"),
        (1, 0, ["log"], "interrupted; 1 call cancelled (the log has its result)"),
        (0, 1, [], "interrupted; 1 call not started"),
        (2, 0, ["journal"], "interrupted; 2 calls cancelled (the journal has their results)"),
    ],
)
def test_the_closing_line(cancelled: int, unstarted: int, kept: list[str], line: str) -> None:
    assert cancelled_line(cancelled, unstarted, kept) == line


def interrupt_when_ready(fifo: Path) -> threading.Thread:
    """SIGINT to this process once the command writes into the FIFO `fifo` (made here)."""
    os.mkfifo(fifo)

    def wait_then_interrupt() -> None:
        with open(fifo, "rb") as reader:
            reader.read()
        os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=wait_then_interrupt, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("interpreter", ["sync", "asyncio", "trio"])
def test_an_interrupted_journaled_run_keeps_the_cancelled_call_in_the_log_and_the_journal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, interpreter: str
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    log, journal = tmp_path / "log.jsonl", str(tmp_path / "journal.db")
    interrupting = interrupt_when_ready(workspace / "ready")
    blocking = {"command": "echo ready > ready; sleep 1000", "timeout": 600}
    session = write_session(
        tmp_path / "session.jsonl",
        {"calls": [{"id": "b1", "name": "bash", "arguments": blocking}]},
        {"calls": [{"id": "r1", "name": "read", "arguments": {"path": "missing.txt"}}]},
    )
    ran = toolfx(
        capsys, "run", session, "--workspace", str(workspace), "--yes", "--log", str(log),
        "--journal", journal, "--interpreter", interpreter, "--json",
    )  # fmt: skip
    interrupting.join(SAFETY_NET)

    assert ran.code == 130, ran.err
    line = "toolfx: interrupted; 1 call cancelled (the log and the journal have its result)\n"
    assert ran.err == line
    results: dict[str, Any] = {}
    for record in map(json.loads, log.read_text().splitlines()):
        if record["event"] == "tool/result":
            results[record["callId"]] = record["result"]
    assert list(results) == ["b1"]
    assert results["b1"]["error"]["code"] == "ABORTED"
    with SqliteJournal(journal) as opened:
        settled = [r for r in opened.records() if isinstance(r, ToolResultRecord)]
    assert [r.call_id for r in settled] == ["b1"]
    error = settled[0].result.error
    assert error is not None
    assert error.info.code is ErrorCode.ABORTED


@pytest.mark.parametrize(
    "line",
    [
        '{"calls": [{"id": "c1", "name": "read", "arguments": {}}, {"id": "c2", "name": "glob",'
        ' "arguments": {}}]}',
        '{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function":'
        ' {"name": "read", "arguments": "{}"}}, {"id": "c2", "type": "function", "function":'
        ' {"name": "glob", "arguments": "{}"}}]}',
        '{"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "read",'
        ' "input": {}}, {"type": "tool_use", "id": "c2", "name": "glob", "input": {}}]}',
    ],
)
def test_every_call_of_a_turn_shares_the_signal_ctrl_c_sets(tmp_path: Path, line: str) -> None:
    (turn,) = parse_session(line)
    given = Interrupts(Exits()).signal()
    calls = turn_calls(turn, load_catalog(str(tmp_path)), given)
    assert [call.call_id for call in calls] == ["c1", "c2"]
    assert all(call.signal is given for call in calls)
