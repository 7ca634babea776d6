"""A session reads the journal before each batch: only the new records from a `FollowedJournal`
(bounded work per batch), the whole journal when another session appended or the journal cannot
follow; so a call another session settled is never run again here."""

from __future__ import annotations

from typing import final

from toolfx.core import Location
from toolfx.core.journal import JournaledSession
from toolfx.core.pipeline import ToolCall
from toolfx.core.records import SessionRecord
from toolfx.core.registry import Catalog
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import tool
from toolfx.interpreters.sync import run_sync
from toolfx.testing._scenarios_journal import ListJournal

BODIES: list[str] = []


@tool
def shout(text: str) -> str:
    """Shout a text (not idempotent)."""
    BODIES.append(text)
    return text.upper()


def catalog_of() -> Catalog:
    location = Location()
    location.register(shout)
    location.add_scope("agent")
    return location.catalog("agent")


@final
class Counting:
    """A journal over `inner` that counts the records it hands out, whole reads apart."""

    __slots__ = ("handed", "inner", "whole")

    def __init__(self, inner: ListJournal) -> None:
        self.inner = inner
        self.handed = 0
        self.whole = 0

    def append(self, record: SessionRecord) -> None:
        self.inner.append(record)

    def records(self) -> tuple[SessionRecord, ...]:
        self.whole += 1
        records = self.inner.records()
        self.handed += len(records)
        return records


@final
class Followed:
    """`Counting`, and it follows (`records_after`)."""

    __slots__ = ("counting",)

    def __init__(self, inner: ListJournal) -> None:
        self.counting = Counting(inner)

    def append(self, record: SessionRecord) -> None:
        self.counting.append(record)

    def records(self) -> tuple[SessionRecord, ...]:
        return self.counting.records()

    def records_after(self, count: int) -> tuple[SessionRecord, ...]:
        records = self.counting.inner.records_after(count)
        self.counting.handed += len(records)
        return records


def shouts(*ids: str) -> list[ToolCall]:
    return [ToolCall(call_id, "shout", {"text": call_id}, CancelSignal()) for call_id in ids]


def test_a_followed_journal_is_read_only_past_what_the_session_knows() -> None:
    catalog = catalog_of()
    followed = Followed(ListJournal())
    session = JournaledSession(followed)
    for n in range(50):
        run_sync(session.execute(catalog, shouts(f"c{n}")))
    # one whole read (at the start), then each batch's own two records read back once
    assert (followed.counting.whole, followed.counting.handed) == (1, 2 * 49)


def test_another_sessions_records_make_a_whole_read_and_nothing_runs_twice() -> None:
    catalog = catalog_of()
    BODIES.clear()
    shared = ListJournal()
    followed = Followed(shared)
    mine = JournaledSession(followed)
    run_sync(mine.execute(catalog, shouts("a")))
    run_sync(JournaledSession(shared).execute(catalog, shouts("b")))
    again = run_sync(mine.execute(catalog, shouts("a", "b")))
    assert again.outcomes == ("replayed", "replayed")
    assert BODIES == ["a", "b"]
    assert followed.counting.whole == 2


def test_a_journal_that_cannot_follow_is_read_whole_before_each_batch() -> None:
    catalog = catalog_of()
    BODIES.clear()
    shared = ListJournal()
    counting = Counting(shared)
    mine = JournaledSession(counting)
    run_sync(JournaledSession(shared).execute(catalog, shouts("a")))
    assert run_sync(mine.execute(catalog, shouts("a"))).outcomes == ("replayed",)
    assert (BODIES, counting.whole) == (["a"], 2)
