"""Crash faults under pyright strict: a MemoryJournal is a Journal and a Mortal (as mypy)."""

from typing import assert_type

from toolfx.core.journal import Journal, JournaledSession
from toolfx.interpreters.testing import (
    CrashAt,
    CrashAtAppend,
    Crashed,
    DeterministicInterpreter,
    Fault,
    MemoryJournal,
    Mortal,
)

journal = MemoryJournal(crash=CrashAtAppend(3, committed=True))
durable: Journal = journal
mortal: Mortal = journal
JournaledSession(journal)
fault: Fault = CrashAt(4)
DeterministicInterpreter(seed=1, faults=[fault], mortal=[journal])
assert_type(journal.survivor(), MemoryJournal)
assert_type(journal.death, str | None)
assert_type(Crashed(1, "why").step, int)
wrong: Fault = CrashAtAppend(1)  # pyright: ignore[reportAssignmentType]
DeterministicInterpreter(mortal=[object()])  # pyright: ignore[reportArgumentType]
