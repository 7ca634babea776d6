"""What a toolfx journal file is, and telling one apart: its table, application id and schema
version; an empty file is made into one, anything else is refused untouched.

The file is recognised by all of its identity at once: SQLite's header `application_id` (ours is
"tfx1"), `user_version` (the schema version) and the exact schema (one table and its index, as
this module creates them). A file that differs in any of them is someone else's, or a journal of
another version, or one whose tables were changed by hand: `NotAJournalError`, and nothing is
written. Reading the schema is bounded: at most three schema rows and their first 500
characters are fetched, whatever the file holds.
"""

from __future__ import annotations

import sqlite3
from typing import Final, Literal

from toolfx.core.json import render_literal
from toolfx.interpreters.journal._errors import JournalFileError, NotAJournalError

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "identify", "make_journal"]

APPLICATION_ID: Final = 0x74667831
"""SQLite's header field naming the application that owns the file: "tfx1" in ASCII."""

SCHEMA_VERSION: Final = 1
"""The schema version this module reads and writes, kept in SQLite's `user_version`."""

_TABLE: Final = (
    "CREATE TABLE records ("
    "sequence INTEGER PRIMARY KEY, event TEXT NOT NULL, call_id TEXT NOT NULL,"
    " record TEXT NOT NULL) STRICT"
)
_INDEX: Final = "CREATE INDEX records_by_call_id ON records (call_id)"
_SCHEMA: Final = (
    ("table", "records", "records", _TABLE),
    ("index", "records_by_call_id", "records", _INDEX),
)
_SHOWN_ROWS: Final = len(_SCHEMA) + 1
_SHOWN_SQL: Final = 500

Identity = Literal["journal", "empty"]
"""A file that is a journal of this schema, or an empty one that can become one."""


def identify(connection: sqlite3.Connection, path: str) -> Identity:
    """Whether the connection's file is a journal or empty; `NotAJournalError` for anything else."""
    own = not connection.in_transaction  # one snapshot: another process may be creating it
    try:
        if own:
            connection.execute("BEGIN")
        try:
            application = _pragma(connection, "application_id")
            version = _pragma(connection, "user_version")
            schema = tuple(
                tuple(row)
                for row in connection.execute(
                    "SELECT type, name, tbl_name, substr(sql, 1, ?) FROM sqlite_schema"
                    " ORDER BY rowid LIMIT ?",
                    (_SHOWN_SQL, _SHOWN_ROWS),
                )
            )
        finally:
            if own and connection.in_transaction:
                connection.execute("COMMIT")
    except sqlite3.Error as error:
        if error.sqlite_errorcode == sqlite3.SQLITE_NOTADB:
            raise NotAJournalError(path, "the file is not an SQLite database") from error
        raise JournalFileError(path, f"cannot read it: {error}") from error
    if application == APPLICATION_ID and version == SCHEMA_VERSION and schema == _SCHEMA:
        return "journal"
    if application == 0 and version == 0 and not schema:
        return "empty"
    raise NotAJournalError(path, _foreign(application, version, schema))


def make_journal(connection: sqlite3.Connection, path: str) -> None:
    """Create the journal's table in an empty file, or find it made, atomically: several
    processes may open one new file at once; exactly one of them creates it.

    An empty file is switched to WAL before its first write, so a journal is WAL from its birth:
    leaving rollback mode later needs an exclusive lock that SQLite does not wait for, and
    another opener reading the new file at that moment would make the switch fail.
    """
    if identify(connection, path) == "journal":
        return
    try:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("BEGIN IMMEDIATE")
        try:
            if identify(connection, path) == "empty":
                connection.execute(_TABLE)
                connection.execute(_INDEX)
                connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            connection.execute("COMMIT")
        finally:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
    except sqlite3.Error as error:
        raise JournalFileError(path, f"cannot create the journal: {error}") from error


def _pragma(connection: sqlite3.Connection, name: str) -> object:
    row = connection.execute(f"PRAGMA {name}").fetchone()
    return None if row is None else row[0]


def _foreign(application: object, version: object, schema: tuple[tuple[object, ...], ...]) -> str:
    names = [str(row[1]) for row in schema[: len(_SCHEMA)]]
    more = ", ..." if len(schema) > len(_SCHEMA) else ""
    tables = f"{', '.join(render_literal(name) for name in names)}{more}" if names else "none"
    if application == APPLICATION_ID and version != SCHEMA_VERSION:
        return (
            f"a toolfx journal of schema version {version}; this toolfx reads version"
            f" {SCHEMA_VERSION} (left as it is)"
        )
    if application == APPLICATION_ID:
        return f"a toolfx journal whose tables were changed (found: {tables}; left as it is)"
    return (
        f"not a toolfx journal: an SQLite database of application id {application}, user"
        f" version {version}, tables {tables} (left as it is)"
    )
