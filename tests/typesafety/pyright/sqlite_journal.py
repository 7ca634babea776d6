"""The SQLite journal under pyright strict: a core Journal by shape, two durabilities (as mypy)."""

from typing import assert_type

from toolfx.core.journal import Journal
from toolfx.core.records import SessionRecord
from toolfx.interpreters.journal import SqliteJournal

journal: Journal = SqliteJournal("j.db", durability="power")
assert_type(journal.records(), tuple[SessionRecord, ...])
with SqliteJournal("j.db") as opened:
    assert_type(opened, SqliteJournal)

SqliteJournal("j.db", durability="disk")  # pyright: ignore[reportArgumentType]
