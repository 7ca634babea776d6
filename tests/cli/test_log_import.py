"""A session log imported into a journal: its tool records in order, the header and turn marks
left out, and a bad line refused with its number before anything is journaled."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolfx.core.records import (
    SessionRecord,
    ToolApprovalRecord,
    ToolCallRecord,
    ToolCodeDispatchRecord,
    ToolResultRecord,
)
from toolfx.core.tools import DurableResult, TextBlock
from toolfx.interpreters.cli._log import (
    LogError,
    LogRecord,
    ReplayedRecord,
    SessionHeader,
    TurnRecord,
    log_line,
)
from toolfx.interpreters.cli._log_import import import_log
from toolfx.interpreters.journal import SqliteJournal

RECORDS: tuple[SessionRecord, ...] = (
    ToolCallRecord("c1", "c1", "bash", {"command": "ls"}),
    ToolApprovalRecord("c1", "bash", ("ls",), None, "allowed-once"),
    ToolResultRecord("c1", DurableResult((TextBlock("a.txt\n"),), None, None)),
    ToolCallRecord("c2:code:1", "c2", "read", {"path": "a"}, None, "c2"),
    ToolCodeDispatchRecord("c2:code:1", "c2", "read", False, (TextBlock("é"),)),
)
LOG: tuple[LogRecord, ...] = (
    SessionHeader("/ws", "sync"),
    TurnRecord(1, 1),
    *RECORDS[:3],
    TurnRecord(2, 1),
    *RECORDS[3:],
)


def log_text(lines: tuple[LogRecord, ...]) -> str:
    return "".join(log_line(line) + "\n" for line in lines)


def test_the_tool_records_of_a_log_are_journaled_in_order(tmp_path: Path) -> None:
    with SqliteJournal(tmp_path / "j.db") as journal:
        assert import_log(log_text(LOG), journal) == len(RECORDS)
        assert journal.records() == RECORDS


def test_importing_appends_after_what_the_journal_holds(tmp_path: Path) -> None:
    earlier = ToolCallRecord("c0", "c0", "glob", {"pattern": "*"})
    with SqliteJournal(tmp_path / "j.db") as journal:
        journal.append(earlier)
        assert import_log(log_text(LOG[:3]), journal) == 1
        assert journal.records() == (earlier, RECORDS[0])


def test_a_log_of_only_its_header_imports_nothing(tmp_path: Path) -> None:
    with SqliteJournal(tmp_path / "j.db") as journal:
        assert import_log(log_text(LOG[:2]), journal) == 0
        assert journal.records() == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (log_text(LOG[:3]) + "{not json\n" + log_text(LOG[3:]), r"^line 4: not JSON"),
        (log_text(LOG[:3]) + '{"event":"tool/nope"}\n', r"^line 4: unknown event 'tool/nope'"),
        (log_text(LOG[2:]), r"^line 1: .*first event"),
        ("", r"^line 1: the log is empty"),
    ],
)
def test_a_bad_line_is_refused_with_its_number_and_nothing_is_journaled(
    tmp_path: Path, text: str, message: str
) -> None:
    earlier = ToolCallRecord("c0", "c0", "glob", {"pattern": "*"})
    with SqliteJournal(tmp_path / "j.db") as journal:
        journal.append(earlier)
        with pytest.raises(LogError, match=message):
            import_log(text, journal)
        assert journal.records() == (earlier,)


def test_a_replayed_line_is_journaled_as_its_call_and_result(tmp_path: Path) -> None:
    call, _, result = RECORDS[:3]
    assert isinstance(call, ToolCallRecord)
    assert isinstance(result, ToolResultRecord)
    lines = (SessionHeader("/ws", "sync"), TurnRecord(1, 1), ReplayedRecord(call, result))
    with SqliteJournal(tmp_path / "j.db") as journal:
        assert import_log(log_text(lines), journal) == 2
        assert journal.records() == (call, result)
