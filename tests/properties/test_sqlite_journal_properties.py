"""The SQLite journal's law: what was appended (one by one or in one extend) is what `records`
gives back, exactly and in order, also after the file is closed and opened again.

The default durability only: the "power" one differs in fsyncs alone, which a law cannot see and
which would make 10,000 examples take minutes (the unit tests open, append and reopen with it).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Final

from hypothesis import given
from hypothesis import strategies as st

from tests.properties.test_records_properties import contents, session_records, texts
from toolfx.core.records import SessionRecord, ToolCodeDispatchRecord
from toolfx.interpreters.journal import SqliteJournal

every_record: st.SearchStrategy[SessionRecord] = session_records | st.builds(
    ToolCodeDispatchRecord, texts, texts, texts, st.booleans(), contents
)


MEMORY_FOLDER: Final = Path("/dev/shm")
"""A tmpfs where there is one: the law is about order and content, and a file system that fsyncs
to a disk makes each example's new file cost ~20 ms of SQLite's own syncs."""


@given(
    st.lists(every_record, max_size=6),
    st.lists(every_record, max_size=6),
)
def test_records_are_what_was_appended_in_order_across_reopening(
    appended: list[SessionRecord], extended: list[SessionRecord]
) -> None:
    scratch = MEMORY_FOLDER if MEMORY_FOLDER.is_dir() else None
    with tempfile.TemporaryDirectory(dir=scratch) as folder:
        path = Path(folder) / "j.db"
        with SqliteJournal(path) as journal:
            for record in appended:
                journal.append(record)
            assert journal.extend(extended) == len(extended)
            assert journal.records() == (*appended, *extended)
        with SqliteJournal(path) as reopened:
            assert reopened.records() == (*appended, *extended)
