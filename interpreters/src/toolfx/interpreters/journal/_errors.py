"""What goes wrong with a journal file: it cannot be used, it is someone else's, a row is bad."""

from __future__ import annotations

__all__ = ["CorruptRecordError", "JournalFileError", "NotAJournalError"]


class JournalFileError(Exception):
    """The journal at `path` cannot be opened, written or read: the message says which and why."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"journal {path}: {reason}")
        self.path = path
        self.reason = reason


class NotAJournalError(JournalFileError):
    """The file is not a toolfx journal (not SQLite, other tables, another schema version); it
    was left as it was."""


class CorruptRecordError(JournalFileError):
    """A stored row is not a record: its sequence number, the JSON pointer of the bad place, why."""

    def __init__(self, path: str, sequence: int, pointer: str, problem: str) -> None:
        where = pointer if pointer else "the root"
        super().__init__(path, f"row {sequence} is not a toolfx record: {problem} at {where}")
        self.sequence = sequence
        self.pointer = pointer
        self.problem = problem
