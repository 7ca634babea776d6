"""The durable store a journaled run writes to and recovers from."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from toolfx.core.records import SessionRecord

__all__ = ["FollowedJournal", "Journal"]


class Journal(Protocol):
    """A session's durable records: `append` commits one before it returns; `records` loads all.

    The pipeline goes on only once `append` has returned, so what a crash can lose is exactly
    what was never appended. An implementation that cannot commit raises (the journaled run then
    refuses to run the call whose `tool/call` it could not keep).
    """

    def append(self, record: SessionRecord) -> None:
        """Commit `record` after every record appended before it."""
        ...

    def records(self) -> tuple[SessionRecord, ...]:
        """Every committed record, in the order they were appended (by any process)."""
        ...


@runtime_checkable
class FollowedJournal(Journal, Protocol):
    """A journal that can give only the records committed after the first `count`: a session
    then reads just what is new before each batch (without it, the whole journal)."""

    def records_after(self, count: int) -> tuple[SessionRecord, ...]:
        """The committed records after the first `count` (by any process), in order."""
        ...
