"""A record as a journal row and back: its wire JSON beside its event and call id.

The JSON is the record's `to_json()` written with `ensure_ascii=False` (the session log's line,
the same text): non-ASCII text is stored once as UTF-8, not as six-character escapes, and it can
always be: `to_json` refuses a string with a lone surrogate (the pipeline writes those as
`\\udXXX` text first), so every record's text encodes. A row is read back strictly: its JSON
through `parse_json` (no duplicate keys, no NaN, the default size and depth limits, which
`to_json` keeps too) and `record_from_json`, and its event and call id columns must agree with
the record; anything else is a `CorruptRecordError` naming the row and the JSON pointer.
"""

from __future__ import annotations

import json
from typing import Final

from returns.result import Failure

from toolfx.core.json import DEFAULT_LIMITS, parse_json, render_literal
from toolfx.core.records import SessionRecord, record_from_json
from toolfx.interpreters.journal._errors import CorruptRecordError, JournalFileError

__all__ = ["MAX_ROW_BYTES", "Row", "read_row", "row_of"]

MAX_ROW_BYTES: Final = DEFAULT_LIMITS.max_size
"""The largest row SQLite will store or hand back (its length limit on the connection): what
`parse_json` accepts, so every row that can be written can be read."""

Row = tuple[str, str, str]
"""A row to insert: event, call id and the record's JSON text."""


def row_of(path: str, record: SessionRecord) -> Row:
    """The row that stores `record`; `JournalFileError` if it is not JSON (a hand-built record)."""
    try:
        text = json.dumps(record.to_json(), ensure_ascii=False, separators=(",", ":"))
    except ValueError as error:
        raise JournalFileError(
            path, f"cannot write the `{record.event}` of {record.call_id!r}: {error}"
        ) from error
    return record.event, record.call_id, text


def read_row(
    path: str, sequence: int, event: object, call_id: object, text: object
) -> SessionRecord:
    """The record a stored row holds; `CorruptRecordError` at the first thing wrong with it."""
    if not isinstance(text, str):
        reason = f"the record column holds {_shown(text)}, not JSON text"
        raise CorruptRecordError(path, sequence, "", reason)
    parsed = parse_json(text)
    if isinstance(parsed, Failure):
        problem = parsed.failure()
        raise CorruptRecordError(path, sequence, problem.path, f"not JSON: {problem.reason}")
    read = record_from_json(parsed.unwrap())
    if isinstance(read, Failure):
        error = read.failure()
        raise CorruptRecordError(path, sequence, error.path, error.reason)
    record = read.unwrap()
    for pointer, column, stored, value in (
        ("/event", "event", event, record.event),
        ("/callId", "call_id", call_id, record.call_id),
    ):
        if stored != value:
            raise CorruptRecordError(
                path,
                sequence,
                pointer,
                f"the {column} column holds {_shown(stored)}, the record {render_literal(value)}",
            )
    return record


_SQL_TYPES: Final = {type(None): "NULL", int: "an INTEGER", float: "a REAL", bytes: "a BLOB"}


def _shown(value: object) -> str:
    """A stored SQL value for a message: text quoted and cut short, anything else by its type."""
    return render_literal(value) if isinstance(value, str) else _SQL_TYPES.get(type(value), "?")
