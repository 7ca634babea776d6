"""The SQLite journal: each record committed to a WAL database before `append` returns.

Durability is chosen per journal. `"process"` (the default) is WAL with `synchronous=NORMAL`: a
commit is in the write-ahead log (the OS holds it) before `append` returns, so it survives the
process dying at any point, SIGKILL included, but not a power loss. `"power"` is WAL with
`synchronous=FULL` (the log is fsynced at every commit), `fullfsync` where the OS has it (macOS:
fsync alone leaves the drive's cache), and the folder fsynced at every opening, so the file's
name survives too (SQLite syncs the folder itself for the write-ahead log it creates).

Several processes may append to one file (one runs the session, another answers approvals):
SQLite serialises the writers, each waiting up to `busy_timeout` seconds for the others. Inside
one process every use of the connection holds a lock, so threads may append at once. Rows are
numbered in commit order, which `records` returns.

A hostile or broken file: one that is not a journal of this schema is refused before anything is
written (`NotAJournalError`; an existing file is first inspected through a read-only
connection). SQLite's length limit on the connection is `MAX_ROW_BYTES`, so no single row larger
than that is ever handed to Python: such a row is a `CorruptRecordError` naming it, as is a row
that does not decode. `records` loads every row, so its memory grows with the journal; a damaged
database file is a `JournalFileError` carrying SQLite's message.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import closing
from pathlib import Path
from types import TracebackType
from typing import Final, Literal, TypeVar, final

from toolfx.core.records import SessionRecord
from toolfx.interpreters.journal._errors import CorruptRecordError, JournalFileError
from toolfx.interpreters.journal._rows import MAX_ROW_BYTES, read_row, row_of
from toolfx.interpreters.journal._schema import identify, make_journal

__all__ = ["Durability", "SqliteJournal"]

Durability = Literal["process", "power"]
"""What a committed record survives: the process dying (`"process"`) or a power loss too."""

_SYNCHRONOUS: Final[Mapping[str, str]] = {"process": "NORMAL", "power": "FULL"}
_INSERT: Final = "INSERT INTO records (event, call_id, record) VALUES (?, ?, ?)"
_SELECT: Final = "SELECT sequence, event, call_id, record FROM records ORDER BY sequence"
_SELECT_AFTER: Final = (
    "SELECT sequence, event, call_id, record FROM records WHERE sequence > ? ORDER BY sequence"
)
_SELECT_SKIPPING: Final = f"{_SELECT} LIMIT -1 OFFSET ?"
_T = TypeVar("_T")


@final
class SqliteJournal:
    """A journal in an SQLite file: `append` commits a record before it returns (see `durability`),
    `records` reads every committed one back in order, whichever process appended it."""

    __slots__ = ("_connection", "_lock", "_read_to", "durability", "path")

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        durability: Durability = "process",
        busy_timeout: float = 30.0,
    ) -> None:
        self.path: str = os.fspath(path)
        """The file's path as given."""
        if durability not in _SYNCHRONOUS:
            raise ValueError(f"durability is 'process' or 'power', not {durability!r}")
        if not busy_timeout >= 0:
            raise ValueError(f"busy_timeout is a number of seconds, not {busy_timeout!r}")
        self.durability: Durability = durability
        """What a committed record survives."""
        self._lock = threading.Lock()
        self._read_to: tuple[int, int] = (0, -(2**63))  # the last read: how many rows, to which
        self._connection: sqlite3.Connection | None = self._open(busy_timeout)

    def append(self, record: SessionRecord) -> None:
        """Commit `record` after every record appended before it (else `JournalFileError`)."""
        row = row_of(self.path, record)
        self._write(lambda connection: connection.execute(_INSERT, row), record)

    def extend(self, records: Iterable[SessionRecord]) -> int:
        """Commit `records` in order in one transaction: all of them or none; how many."""
        rows = [row_of(self.path, record) for record in records]
        self._write(
            lambda connection: _in_transaction(
                connection, lambda: connection.executemany(_INSERT, rows)
            ),
            None,
        )
        return len(rows)

    def records(self) -> tuple[SessionRecord, ...]:
        """Every committed record, in the order they were committed (by any process)."""
        return self.records_after(0)

    def records_after(self, count: int) -> tuple[SessionRecord, ...]:
        """The committed records after the first `count`, in order (by any process); reading
        on from the last read costs only the new rows (rows are only ever added, in order)."""
        if count < 0:
            raise ValueError(f"a count of records is at least 0, not {count}")
        with self._lock:
            connection = self._opened()
            read, last = self._read_to
            query, start = (_SELECT_AFTER, last) if count == read else (_SELECT_SKIPPING, count)
            try:
                rows = _in_transaction(
                    connection, lambda: tuple(self._read(connection, query, start)), "BEGIN"
                )
            except sqlite3.Error as error:
                raise JournalFileError(self.path, f"cannot read it: {error}") from error
            if rows:
                self._read_to = (count + len(rows), rows[-1][0])
            return tuple(record for _, record in rows)

    def close(self) -> None:
        """Close the file (once; using a closed journal raises `JournalFileError`)."""
        with self._lock:
            connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def __enter__(self) -> SqliteJournal:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SqliteJournal({self.path!r}, durability={self.durability!r})"

    def _open(self, busy_timeout: float) -> sqlite3.Connection:
        target = Path(self.path).absolute()
        if not target.parent.is_dir():
            raise JournalFileError(self.path, f"the folder {target.parent} does not exist")
        if target.is_dir():
            raise JournalFileError(self.path, "it is a folder; a journal is a file")
        if target.exists():  # look before anything can write: a foreign file stays as it is
            with closing(_connect(self.path, f"{target.as_uri()}?mode=ro", busy_timeout)) as probe:
                identify(probe, self.path)
        connection = _connect(self.path, str(target), busy_timeout)
        try:
            self._set_syncs(connection)  # before the first write: the new file's own
            make_journal(connection, self.path)
            _use_wal(connection, self.path)
            if self.durability == "power":
                _sync_folder(self.path, target.parent)
        except BaseException:
            connection.close()
            raise
        return connection

    def _set_syncs(self, connection: sqlite3.Connection) -> None:
        """How often this connection's commits reach the disk (a setting of the connection)."""
        try:
            connection.execute(f"PRAGMA synchronous = {_SYNCHRONOUS[self.durability]}")
            if self.durability == "power":
                connection.execute("PRAGMA fullfsync = ON")
                connection.execute("PRAGMA checkpoint_fullfsync = ON")
        except sqlite3.Error as error:
            raise JournalFileError(self.path, f"cannot set its durability: {error}") from error

    def _opened(self) -> sqlite3.Connection:
        if self._connection is None:
            raise JournalFileError(self.path, "the journal is closed")
        return self._connection

    def _write(
        self, write: Callable[[sqlite3.Connection], object], record: SessionRecord | None
    ) -> None:
        what = "the records" if record is None else f"the `{record.event}` of {record.call_id!r}"
        with self._lock:
            connection = self._opened()
            try:
                write(connection)
            except sqlite3.Error as error:
                reason = (
                    f"larger than the {MAX_ROW_BYTES} bytes a row may hold"
                    if _too_big(error)
                    else str(error)
                )
                raise JournalFileError(self.path, f"cannot append {what}: {reason}") from error

    def _read(
        self, connection: sqlite3.Connection, query: str, start: int
    ) -> Iterator[tuple[int, SessionRecord]]:
        last = None
        try:
            for sequence, event, call_id, text in connection.execute(query, (start,)):
                yield sequence, read_row(self.path, sequence, event, call_id, text)
                last = sequence
        except sqlite3.Error as error:
            if not _too_big(error):
                raise
            sequence = _first_oversized(connection, last)
            reason = f"the row is larger than the limit of {MAX_ROW_BYTES} bytes"
            raise CorruptRecordError(self.path, sequence, "", reason) from error


def _connect(path: str, database: str, busy_timeout: float) -> sqlite3.Connection:
    uri = database.startswith("file:")
    try:
        connection = sqlite3.connect(
            database,
            timeout=busy_timeout,
            isolation_level=None,  # autocommit: each statement commits, BEGIN where we say
            check_same_thread=False,  # threads share it under the journal's lock
            uri=uri,
        )
    except sqlite3.Error as error:
        raise JournalFileError(path, f"cannot open it: {error}") from error
    connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_ROW_BYTES)
    connection.execute("PRAGMA trusted_schema = OFF")
    return connection


def _in_transaction(
    connection: sqlite3.Connection, work: Callable[[], _T], begin: str = "BEGIN IMMEDIATE"
) -> _T:
    """`work` inside one transaction: committed if it returns, rolled back if it raises."""
    connection.execute(begin)
    try:
        result = work()
        connection.execute("COMMIT")
    finally:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
    return result


def _first_oversized(connection: sqlite3.Connection, after: int | None) -> int:
    """The first row after `after` that SQLite refuses to load for its length."""
    start = -(2**63) if after is None else after
    query = "SELECT sequence FROM records WHERE sequence > ? ORDER BY sequence"
    for (sequence,) in connection.execute(query, (start,)):  # the key alone: nothing is loaded
        try:
            connection.execute("SELECT * FROM records WHERE sequence = ?", (sequence,)).fetchone()
        except sqlite3.Error as error:
            if _too_big(error):
                return int(sequence)
            raise
    raise AssertionError("unreachable: SQLite refused a row it then loaded")


def _use_wal(connection: sqlite3.Connection, path: str) -> None:
    """Keep the file in WAL mode (it is from its birth; a hand-made change is undone)."""
    try:
        mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()
    except sqlite3.Error as error:
        raise JournalFileError(path, f"cannot set its journal mode: {error}") from error
    if mode is None or mode[0] != "wal":
        found = "nothing" if mode is None else repr(mode[0])
        raise JournalFileError(path, f"cannot use write-ahead logging here (mode {found})")


def _too_big(error: sqlite3.Error) -> bool:
    """Whether SQLite refused a value over the connection's length limit."""
    return error.sqlite_errorcode == sqlite3.SQLITE_TOOBIG


def _sync_folder(path: str, folder: Path) -> None:
    """Make a new file's name in `folder` durable (fsync of the folder)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
    except OSError as error:
        raise JournalFileError(path, f"cannot make its folder durable: {error}") from error
