"""A journal in memory that dies with its process: the durable store of crash tests.

It keeps each committed record's wire form (its JSON text, as a file or a database would) and
reads them back with the records' own decoder, so what a restarted process recovers is what the
wire kept, never a live object. Give it to the `DeterministicInterpreter` as `mortal`: a crash
(`CrashAt`, or the journal's own `CrashAtAppend`) kills it before anything else runs, and from then
on every append is dropped; `survivor()` is the journal the restarted process opens.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, final

from returns.result import Failure

from toolfx.core.json import parse_json
from toolfx.core.records import record_from_json

if TYPE_CHECKING:
    from toolfx.core.records import SessionRecord

__all__ = ["CrashAtAppend", "MemoryJournal"]


@final
@dataclass(frozen=True, slots=True)
class CrashAtAppend:
    """Where a `MemoryJournal` takes its process down: at its `append`-th append (counted from 1),
    after committing that record when `committed`, else losing it."""

    append: int
    committed: bool = False

    def __post_init__(self) -> None:
        if self.append < 1:
            raise ValueError(f"appends count from 1, not {self.append!r}")


@final
class MemoryJournal:
    """A `toolfx.core.journal.FollowedJournal` in memory (each record's JSON text) that can die.

    `append` commits at once; once the journal is dead (`die`, a crash of the interpreter it is
    mortal to, or its own `crash` point) appends are dropped silently, as the writes of a dead
    process are, and the committed records stay.
    """

    __slots__ = ("_appends", "_crash", "_death", "_lines")

    def __init__(self, *, crash: CrashAtAppend | None = None) -> None:
        self._lines: list[str] = []
        self._crash = crash
        self._appends = 0
        self._death: str | None = None

    def append(self, record: SessionRecord) -> None:
        """Commit `record` (its wire form), unless the journal is dead or dies at this append."""
        if self._death is not None:
            return
        self._appends += 1
        line = json.dumps(record.to_json(), ensure_ascii=False, separators=(",", ":"))
        crash = self._crash
        if crash is None or crash.append != self._appends:
            self._lines.append(line)
            return
        if crash.committed:
            self._lines.append(line)
        moment = "after" if crash.committed else "before"
        self.die(f"append {self._appends} to the journal (`{record.event}`), {moment} its commit")

    def records(self) -> tuple[SessionRecord, ...]:
        """Every committed record, read back from its wire form, in order (dead or alive)."""
        return self.records_after(0)

    def records_after(self, count: int) -> tuple[SessionRecord, ...]:
        """The committed records after the first `count`, read back, in order (a session reads
        only these before each batch: `toolfx.core.journal.FollowedJournal`)."""
        lines = self._lines
        return tuple(_read(index, lines[index]) for index in range(max(count, 0), len(lines)))

    @property
    def death(self) -> str | None:
        """Why the journal died (None while it lives)."""
        return self._death

    def die(self, cause: str) -> None:
        """Take no more appends from now on; the committed records stay (dying again: nothing)."""
        if self._death is None:
            self._death = cause

    def survivor(self, *, crash: CrashAtAppend | None = None) -> MemoryJournal:
        """The journal a restarted process opens: this one's committed records, alive, with its
        own crash point (`crash`, counting its own appends from 1)."""
        opened = MemoryJournal(crash=crash)
        opened._lines = list(self._lines)
        return opened


def _read(index: int, line: str) -> SessionRecord:
    """One committed record from its wire form (a line that does not read back is a defect)."""
    read = parse_json(line).alt(str).bind(lambda value: record_from_json(value).alt(str))
    if isinstance(read, Failure):
        raise ValueError(f"the journal's record {index} does not read back: {read.failure()}")
    return read.unwrap()
