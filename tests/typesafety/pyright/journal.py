"""Journaled runs for users under pyright strict: journals by shape, typed answers and statuses."""

from typing import assert_type

from toolfx.core import (
    CancelSignal,
    Description,
    JournaledBatch,
    JournaledSession,
    Location,
    RejectedWithFeedback,
    SessionRecord,
    ToolCall,
    recover,
)
from toolfx.core.journal import InDoubt, Outcome, Pending, Settled


class Store:
    def __init__(self) -> None:
        self.kept: list[SessionRecord] = []

    def append(self, record: SessionRecord) -> None:
        self.kept.append(record)

    def records(self) -> tuple[SessionRecord, ...]:
        return tuple(self.kept)


class WriteOnly:
    def append(self, record: SessionRecord) -> None: ...


session = JournaledSession(Store())
calls = [ToolCall("c1", "t", {}, CancelSignal())]
assert_type(session.execute(Location().catalog(), calls), Description[JournaledBatch])
resumed = session.resume(Location().catalog(), calls, {"c1": "allowed-once"})
assert_type(resumed, Description[JournaledBatch])
session.answer("c1", RejectedWithFeedback("not on main"))
session.answer("c1", "yes")  # pyright: ignore[reportArgumentType]
session.answer("c1", "allowed-once", ask=session.open_asks()[0])
session.answer("c1", "allowed-once", ask="c1")  # pyright: ignore[reportArgumentType]
JournaledSession(WriteOnly())  # pyright: ignore[reportArgumentType]


def outcome_of(batch: JournaledBatch) -> Outcome:
    return batch.outcomes[0]


def describe(records: list[SessionRecord]) -> str:
    status = recover(records).status("c1")
    if isinstance(status, Settled):
        return "settled" if status.result.error is None else "failed"
    if isinstance(status, Pending):
        return ", ".join(status.waiting_for)
    if isinstance(status, InDoubt):
        return status.call.name
    assert_type(status, None)
    return "new"
