"""The SQLite journal under pyright strict: a core Journal by shape, two durabilities (as mypy)."""

from typing import assert_type

from toolfx.core.journal import FollowedJournal, Journal
from toolfx.core.records import SessionRecord
from toolfx.interpreters.journal import SqliteJournal

journal: Journal = SqliteJournal("j.db", durability="power")
assert_type(journal.records(), tuple[SessionRecord, ...])
with SqliteJournal("j.db") as opened:
    assert_type(opened, SqliteJournal)

followed: FollowedJournal = SqliteJournal("j.db")
assert_type(followed.records_after(3), tuple[SessionRecord, ...])
followed.records_after("3")  # pyright: ignore[reportArgumentType]

SqliteJournal("j.db", durability="disk")  # pyright: ignore[reportArgumentType]
