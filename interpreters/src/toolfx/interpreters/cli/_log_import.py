"""A session log's tool records moved into a journal: the JSONL log stays for replay, and a
session that was only logged can still be recovered from a journal.

The log is read whole first (`read_log`: a line that is not a record is a `LogError` naming its
line, and nothing is appended), then its tool records go into the journal in their order, in one
transaction. The `session` header and the `turn` marks are the log's own and are left out; a
`replayed` line (a call a journal had settled before the logged run) goes in as the `tool/call`
and `tool/result` it holds. Importing appends: a log imported twice is journaled twice.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolfx.core.records import SessionRecord
from toolfx.interpreters.cli._log import (
    LogRecord,
    ReplayedRecord,
    SessionHeader,
    TurnRecord,
    read_log,
)
from toolfx.interpreters.journal import SqliteJournal

__all__ = ["import_log"]


def import_log(text: str, journal: SqliteJournal) -> int:
    """Append the tool records of a session log's text to `journal`, all or none; how many."""
    _, lines = read_log(text)
    return journal.extend(record for line in lines for record in _tool_records(line))


def _tool_records(line: LogRecord) -> Iterator[SessionRecord]:
    match line:
        case SessionHeader() | TurnRecord():
            return
        case ReplayedRecord(call=call, result=result):
            yield call
            yield result
        case _:
            yield line
