"""The SQLite journal by example: every record kind, order across reopen, several connections,
threads and processes, a SIGKILL after K commits, foreign files refused untouched, bad rows."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

from toolfx.core.journal import FollowedJournal, Journal
from toolfx.core.records import (
    SessionRecord,
    ToolApprovalRecord,
    ToolCallRecord,
    ToolCodeDispatchRecord,
    ToolResultRecord,
)
from toolfx.core.runtime import RejectedWithFeedback
from toolfx.core.tools import DurableResult, ErrorCode, ImageBlock, TextBlock, ToolFailure
from toolfx.interpreters import (
    CorruptRecordError,
    Durability,
    JournalFileError,
    NotAJournalError,
    SqliteJournal,
)

EVERY_KIND: tuple[SessionRecord, ...] = (
    ToolCallRecord("c1", "c1", "bash", {"command": "echo é 😀", "n": 10**30}, "agent", None),
    ToolApprovalRecord("c1", "bash", ("echo *",), "runs a command", "allowed-once"),
    ToolApprovalRecord("c2", "edit", (), None, RejectedWithFeedback("not there\u2028please")),
    ToolResultRecord(
        "c1", DurableResult((TextBlock("é\x00"), ImageBlock("aGk=", "image/png")), None, {"k": 1})
    ),
    ToolResultRecord(
        "c2", DurableResult((), ToolFailure.of(ErrorCode.DENIED, "no", {"why": [1.5]}), None)
    ),
    ToolCallRecord("c3:code:1", "c3", "read", {"path": "a"}, None, "c3"),
    ToolCodeDispatchRecord("c3:code:1", "c3", "read", False, (TextBlock("text"),)),
)


def call(call_id: str) -> ToolCallRecord:
    return ToolCallRecord(call_id, call_id, "tool", {"id": call_id})


def call_ids(records: tuple[SessionRecord, ...]) -> list[str]:
    return [record.call_id for record in records]


def test_every_record_kind_survives_a_round_trip(tmp_path: Path) -> None:
    with SqliteJournal(tmp_path / "j.db") as journal:
        for record in EVERY_KIND:
            journal.append(record)
        assert journal.records() == EVERY_KIND


def test_a_row_holds_the_session_log_line_with_its_event_and_call_id(tmp_path: Path) -> None:
    record = EVERY_KIND[0]
    with SqliteJournal(tmp_path / "j.db") as journal:
        journal.append(record)
    with sqlite3.connect(tmp_path / "j.db") as raw:
        rows = raw.execute("SELECT sequence, event, call_id, record FROM records").fetchall()
    line = json.dumps(record.to_json(), ensure_ascii=False, separators=(",", ":"))
    assert rows == [(1, "tool/call", "c1", line)]
    assert "é 😀" in line  # stored as UTF-8, not as escapes


def test_records_keep_their_order_across_reopening(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal(path) as journal:
        journal.append(call("a"))
        journal.append(call("b"))
    with SqliteJournal(str(path), durability="power") as journal:
        assert call_ids(journal.records()) == ["a", "b"]
        journal.append(call("c"))
    with SqliteJournal(path) as journal:
        assert call_ids(journal.records()) == ["a", "b", "c"]


def test_extend_commits_records_in_order_and_says_how_many(tmp_path: Path) -> None:
    with SqliteJournal(tmp_path / "j.db") as journal:
        journal.append(call("a"))
        assert journal.extend(call(name) for name in "bcd") == 3
        assert journal.extend([]) == 0
        assert call_ids(journal.records()) == ["a", "b", "c", "d"]


def test_extend_appends_nothing_when_one_record_cannot_be_written(tmp_path: Path) -> None:
    unwritable = ToolCallRecord("x", "x", "tool", {"text": "\ud800"})  # a lone surrogate
    with SqliteJournal(tmp_path / "j.db") as journal:
        journal.append(call("a"))
        with pytest.raises(JournalFileError, match=r"the `tool/call` of 'x'.*surrogate"):
            journal.extend([call("b"), unwritable])
        assert call_ids(journal.records()) == ["a"]


def test_two_connections_to_one_file_see_each_others_records(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal(path) as first, SqliteJournal(path) as second:
        first.append(call("a"))
        second.append(call("b"))
        first.append(call("c"))
        assert call_ids(first.records()) == call_ids(second.records()) == ["a", "b", "c"]


def test_records_after_a_count_are_the_records_past_it_whoever_appended_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal(path) as first, SqliteJournal(path) as second:
        assert isinstance(first, FollowedJournal)
        first.append(call("a"))
        assert call_ids(first.records_after(0)) == ["a"]
        second.append(call("b"))
        first.append(call("c"))
        assert call_ids(first.records_after(1)) == ["b", "c"]  # on from the last read
        second.append(call("d"))
        for count in range(6):  # from any count, read before or not
            assert first.records_after(count) == first.records()[count:]
            assert second.records_after(count) == second.records()[count:]
        with pytest.raises(ValueError, match="at least 0, not -1"):
            first.records_after(-1)


def test_threads_appending_at_once_each_land_once_in_their_order(tmp_path: Path) -> None:
    threads, appends = 8, 40
    start = threading.Barrier(threads)
    errors: list[BaseException] = []
    with SqliteJournal(tmp_path / "j.db") as journal:

        def writer(thread: int) -> None:
            start.wait()
            try:
                for n in range(appends):
                    journal.append(call(f"t{thread}-{n}"))
            except BaseException as error:
                errors.append(error)

        workers = [threading.Thread(target=writer, args=(t,)) for t in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        stored = call_ids(journal.records())
    assert errors == []
    assert Counter(stored) == Counter(f"t{t}-{n}" for t in range(threads) for n in range(appends))
    for thread in range(threads):
        mine = [name for name in stored if name.startswith(f"t{thread}-")]
        assert mine == [f"t{thread}-{n}" for n in range(appends)]


def test_threads_opening_one_new_file_at_once_make_one_journal(tmp_path: Path) -> None:
    threads = 6
    start = threading.Barrier(threads)
    journals: list[SqliteJournal] = []
    errors: list[BaseException] = []

    def opener() -> None:
        start.wait()
        try:
            journals.append(SqliteJournal(tmp_path / "new.db"))
        except BaseException as error:
            errors.append(error)

    workers = [threading.Thread(target=opener) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == []
    for n, journal in enumerate(journals):
        journal.append(call(str(n)))
    assert sorted(call_ids(journals[0].records())) == [str(n) for n in range(threads)]
    for journal in journals:
        journal.close()


CHILD = """
import os, signal, sys
from toolfx.core.records import ToolCallRecord
from toolfx.interpreters.journal import SqliteJournal

path, durability, prefix, count, end = sys.argv[1:]
journal = SqliteJournal(path, durability=durability)
for n in range(int(count)):
    journal.append(ToolCallRecord(f"{prefix}{n}", f"{prefix}{n}", "tool", {"id": f"{prefix}{n}"}))
if end == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
journal.close()
"""


def child(
    path: Path, prefix: str, count: int, *, end: str, durability: Durability = "process"
) -> subprocess.Popen[bytes]:
    """A process that appends `count` calls named `prefix<n>`, then closes or SIGKILLs itself."""
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), durability, prefix, str(count), end]
    )


def test_processes_appending_at_once_each_land_once_in_their_order(tmp_path: Path) -> None:
    path, count = tmp_path / "j.db", 150
    with SqliteJournal(path) as journal:
        children = [child(path, f"p{n}-", count, end="close") for n in range(3)]
        for n in range(count):
            journal.append(call(f"parent-{n}"))
        assert [process.wait() for process in children] == [0, 0, 0]
        stored = call_ids(journal.records())
    prefixes = ["parent-", "p0-", "p1-", "p2-"]
    assert Counter(stored) == Counter(f"{p}{n}" for p in prefixes for n in range(count))
    for prefix in prefixes:
        assert [name for name in stored if name.startswith(prefix)] == [
            f"{prefix}{n}" for n in range(count)
        ]


@pytest.mark.parametrize("durability", ["process", "power"])
def test_a_process_killed_after_k_appends_leaves_exactly_k_records(
    tmp_path: Path, durability: Durability
) -> None:
    path, count = tmp_path / "j.db", 25
    process = child(path, "k", count, end="kill", durability=durability)
    assert process.wait() == -signal.SIGKILL
    assert (tmp_path / "j.db-wal").exists()  # the commits are still in the write-ahead log
    with SqliteJournal(path) as journal:
        assert call_ids(journal.records()) == [f"k{n}" for n in range(count)]


@pytest.mark.parametrize(("durability", "synchronous"), [("process", 1), ("power", 2)])
def test_durability_sets_wal_and_how_often_sqlite_syncs(
    tmp_path: Path, durability: Durability, synchronous: int
) -> None:
    with SqliteJournal(tmp_path / "j.db", durability=durability) as journal:
        connection = journal._connection  # the only place the per-connection setting shows
        assert connection is not None
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert connection.execute("PRAGMA synchronous").fetchone() == (synchronous,)


def test_a_journal_taken_out_of_wal_by_hand_is_put_back(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal(path) as journal:
        journal.append(call("a"))
    make_sqlite(path, "PRAGMA journal_mode = DELETE")
    with SqliteJournal(path) as journal:
        assert call_ids(journal.records()) == ["a"]
        with sqlite3.connect(path) as raw:
            assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        raw.close()


def test_an_unknown_durability_or_timeout_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="'process' or 'power', not 'disk'"):
        SqliteJournal(tmp_path / "j.db", durability="disk")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seconds, not nan"):
        SqliteJournal(tmp_path / "j.db", busy_timeout=float("nan"))
    assert list(tmp_path.iterdir()) == []


def test_a_writer_that_cannot_take_the_lock_is_told_the_journal_is_locked(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal(path, busy_timeout=0) as journal, sqlite3.connect(path) as other:
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        with pytest.raises(JournalFileError, match=r"cannot append the `tool/call` of 'a'.*locked"):
            journal.append(call("a"))
        other.rollback()
        journal.append(call("b"))
        assert call_ids(journal.records()) == ["b"]


def test_a_closed_journal_refuses_to_append_or_read(tmp_path: Path) -> None:
    journal = SqliteJournal(tmp_path / "j.db")
    with journal:
        journal.append(call("a"))
    journal.close()  # closing twice is fine
    with pytest.raises(JournalFileError, match="the journal is closed"):
        journal.append(call("b"))
    with pytest.raises(JournalFileError, match="the journal is closed"):
        journal.records()
    assert repr(journal) == f"SqliteJournal({str(tmp_path / 'j.db')!r}, durability='process')"


def test_a_missing_folder_or_a_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(JournalFileError, match=r"the folder .*/missing does not exist"):
        SqliteJournal(tmp_path / "missing" / "j.db")
    with pytest.raises(JournalFileError, match="it is a folder; a journal is a file"):
        SqliteJournal(tmp_path)
    assert list(tmp_path.iterdir()) == []


def make_sqlite(path: Path, *statements: str) -> None:
    with sqlite3.connect(path) as raw:
        for statement in statements:
            raw.execute(statement)
    raw.close()


OUR_TABLE = (
    "CREATE TABLE records (sequence INTEGER PRIMARY KEY, event TEXT NOT NULL,"
    " call_id TEXT NOT NULL, record TEXT NOT NULL) STRICT"
)
OUR_IDENTITY = ("PRAGMA application_id = 1952872497", "PRAGMA user_version = 1")


@pytest.mark.parametrize(
    ("statements", "reason"),
    [
        (
            ("CREATE TABLE t (x)",),
            r"not a toolfx journal: an SQLite database of application id 0, user version 0,"
            r" tables 't' \(left as it is\)",
        ),
        (
            (OUR_TABLE, "PRAGMA user_version = 1"),
            "application id 0, user version 1, tables 'records'",
        ),
        (
            (OUR_TABLE, "PRAGMA application_id = 1952872497", "PRAGMA user_version = 2"),
            "a toolfx journal of schema version 2; this toolfx reads version 1",
        ),
        (
            (OUR_TABLE, *OUR_IDENTITY),
            r"a toolfx journal whose tables were changed \(found: 'records'",
        ),
        (("PRAGMA application_id = 7",), "application id 7, user version 0, tables none"),
    ],
)
def test_a_foreign_sqlite_file_is_refused_untouched(
    tmp_path: Path, statements: tuple[str, ...], reason: str
) -> None:
    path = tmp_path / "other.db"
    make_sqlite(path, *statements)
    before = path.read_bytes()
    with pytest.raises(NotAJournalError, match=reason):
        SqliteJournal(path)
    assert path.read_bytes() == before
    assert list(tmp_path.iterdir()) == [path]


def test_a_journal_whose_tables_were_changed_by_hand_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal(path) as journal:
        journal.append(call("a"))
    make_sqlite(path, "CREATE TABLE notes (x)", "CREATE TABLE more (x)")
    with pytest.raises(NotAJournalError, match=r"found: 'records', 'records_by_call_id', \.\.\."):
        SqliteJournal(path)


@pytest.mark.parametrize(
    "content", [b"hello, world\n" * 20, b"SQLite format 3\x00" + b"\xff" * 200]
)
def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    with pytest.raises(NotAJournalError, match="not an SQLite database"):
        SqliteJournal(path)
    assert path.read_bytes() == content
    assert list(tmp_path.iterdir()) == [path]


def test_an_empty_file_becomes_a_journal(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    path.write_bytes(b"")
    with SqliteJournal(path) as journal:
        journal.append(call("a"))
        assert call_ids(journal.records()) == ["a"]


def insert_row(path: Path, event: object, call_id: object, text: object) -> None:
    with sqlite3.connect(path) as raw:
        raw.execute(
            "INSERT INTO records (event, call_id, record) VALUES (?, ?, ?)", (event, call_id, text)
        )
    raw.close()


@pytest.mark.parametrize(
    ("event", "call_id", "text", "message"),
    [
        ("tool/call", "b", "{not json", r"row 2 is not a toolfx record: not JSON: .* at the root"),
        (
            "tool/call",
            "b",
            '{"event":"tool/call","callId":"b","rootCallId":"b","name":"t","arguments":{},"x":1}',
            "row 2 is not a toolfx record: unexpected key 'x' at /x",
        ),
        (
            "tool/result",
            "b",
            '{"event":"tool/result","callId":"b","result":{"content":[{"type":"text"}],'
            '"isError":false}}',
            "row 2 is not a toolfx record: missing required key 'text' at /result/content/0",
        ),
        (
            "tool/result",
            "b",
            '{"event":"tool/call","callId":"b","rootCallId":"b","name":"t","arguments":{}}',
            "row 2 .* the event column holds 'tool/result', the record 'tool/call' at /event",
        ),
        (
            "tool/call",
            "z",
            '{"event":"tool/call","callId":"b","rootCallId":"b","name":"t","arguments":{}}',
            "row 2 .* the call_id column holds 'z', the record 'b' at /callId",
        ),
    ],
)
def test_a_row_that_does_not_decode_names_its_sequence_and_pointer(
    tmp_path: Path, event: str, call_id: str, text: str, message: str
) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal(path) as journal:
        journal.append(call("a"))
        insert_row(path, event, call_id, text)
        journal.append(call("c"))
        with pytest.raises(CorruptRecordError, match=message) as raised:
            journal.records()
    assert raised.value.sequence == 2


def test_a_row_of_the_wrong_sql_type_behind_a_forged_schema_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    loose = OUR_TABLE.removesuffix(" STRICT")
    make_sqlite(
        path,
        loose,
        "CREATE INDEX records_by_call_id ON records (call_id)",
        "INSERT INTO records (event, call_id, record) VALUES ('tool/call', 'a', x'7b7d')",
        *OUR_IDENTITY,
        "PRAGMA writable_schema = ON",
        f"UPDATE sqlite_schema SET sql = '{OUR_TABLE}' WHERE name = 'records'",
    )
    with (
        SqliteJournal(path) as journal,
        pytest.raises(
            CorruptRecordError, match=r"row 1 .* holds a BLOB, not JSON text at the root"
        ),
    ):
        journal.records()


def test_a_row_over_the_size_limit_is_never_loaded_and_is_named(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal(path) as journal:
        journal.append(call("a"))
        journal.append(call("b"))
        insert_row(path, "tool/call", "c", "x" * (32 * 1024 * 1024 + 1))
        journal.append(call("d"))
        with pytest.raises(CorruptRecordError, match=r"row 3 .* larger than the limit") as raised:
            journal.records()
    assert raised.value.sequence == 3


def test_a_record_too_large_to_read_back_is_not_appended(tmp_path: Path) -> None:
    large = ToolCallRecord("big", "big", "tool", {"text": "é" * (16 * 1024 * 1024 + 1)})
    with SqliteJournal(tmp_path / "j.db") as journal:
        with pytest.raises(JournalFileError, match="the `tool/call` of 'big': larger than"):
            journal.append(large)
        journal.append(call("a"))
        assert call_ids(journal.records()) == ["a"]


def test_a_sqlite_journal_is_a_journal(tmp_path: Path) -> None:
    journal: Journal = SqliteJournal(tmp_path / "j.db")
    journal.append(call("a"))
    assert call_ids(journal.records()) == ["a"]
