"""The journal bench measures what it says: each timed call commits its own call and result."""

from __future__ import annotations

from pathlib import Path

from tests.bench.bench_journal import appends, calls
from tests.bench.bench_pipeline import plain_location
from toolfx.interpreters.journal import SqliteJournal
from toolfx.interpreters.sync import SyncRuntime


def test_each_journaled_call_and_each_pair_commits_a_call_and_its_result(tmp_path: Path) -> None:
    with SqliteJournal(tmp_path / "j.db") as journal:
        one = calls(plain_location().catalog(), SyncRuntime(), journal)
        one()
        one()
        appends(journal)()
        stored = [(record.event, record.call_id) for record in journal.records()]
    assert stored == [
        ("tool/call", "c0"),
        ("tool/result", "c0"),
        ("tool/call", "c1"),
        ("tool/result", "c1"),
        ("tool/call", "c0"),
        ("tool/result", "c0"),
    ]
