"""The SQLite journal: a session's records committed to a file before the pipeline goes on.

`SqliteJournal` implements `toolfx.core.journal.Journal` over the standard library's sqlite3 in
WAL mode; a record survives the process dying (the default durability) or a power loss
(`durability="power"`), and several processes may append to one file.
"""

from toolfx.interpreters.journal._errors import (
    CorruptRecordError,
    JournalFileError,
    NotAJournalError,
)
from toolfx.interpreters.journal._sqlite import Durability, SqliteJournal

__all__ = [
    "CorruptRecordError",
    "Durability",
    "JournalFileError",
    "NotAJournalError",
    "SqliteJournal",
]
