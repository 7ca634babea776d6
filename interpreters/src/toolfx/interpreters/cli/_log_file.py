"""The session log on disk: each record appended as one whole line, or not at all.

A line is written with unbuffered writes until all of it is down. If a write fails (a full
disk, a file size limit, an I/O error, a closed file), the file is truncated back to the end of
the last whole line, so a reader never sees half a record, and the log is failed for good: every
later append raises the same `LogWriteError` without writing, and nothing unrecorded can follow.
"""

from __future__ import annotations

from typing import Protocol, final

__all__ = ["LogFile", "LogWriteError", "RawFile"]


class RawFile(Protocol):
    """An unbuffered binary file (what `open(path, "wb", buffering=0)` gives)."""

    def write(self, data: memoryview, /) -> int | None:
        """Write some of `data`; how much (None: nothing, it would block)."""
        ...

    def truncate(self, size: int, /) -> int:
        """Cut the file to `size` bytes."""
        ...

    def seek(self, offset: int, /) -> int:
        """Move to `offset` bytes from the start."""
        ...


class LogWriteError(Exception):
    """The session log could not take a record: which log, why, and what it still holds."""


@final
class LogFile:
    """A session log being written: whole lines appended in order until a write fails."""

    __slots__ = ("_end", "_failure", "_file", "_lines", "path")

    def __init__(self, file: RawFile, path: str) -> None:
        self._file = file
        self.path: str = path
        """The path the log was opened at, as the user gave it."""
        self._end = 0
        self._lines = 0
        self._failure: str | None = None

    def append(self, line: str) -> None:
        """Write `line` (no newline in it) and a newline; `LogWriteError` if the log failed."""
        if self._failure is not None:
            raise LogWriteError(self._failure)
        data = (line + "\n").encode("utf-8")
        try:
            self._write_all(memoryview(data))
        except (OSError, ValueError) as error:  # ValueError: the file was closed
            self._failure = self._explain(error, whole=self._truncate())
            raise LogWriteError(self._failure) from error
        self._end += len(data)
        self._lines += 1

    def check(self) -> None:
        """Raise the log's `LogWriteError` if a write failed."""
        if self._failure is not None:
            raise LogWriteError(self._failure)

    def _write_all(self, data: memoryview) -> None:
        while data:
            written = self._file.write(data)
            if not written:  # a non-blocking file that would block: not one this log uses
                raise OSError(f"the log took nothing of a {len(data)}-byte write")
            data = data[written:]

    def _truncate(self) -> bool:
        """Cut the file back to its last whole line; whether that worked."""
        try:
            self._file.truncate(self._end)
            self._file.seek(self._end)
        except (OSError, ValueError):  # a pipe, a device, a closed file
            return False
        return True

    def _explain(self, error: Exception, *, whole: bool) -> str:
        if not whole:
            kept = "its last line may be cut short: the log cannot be truncated"
        elif self._lines:
            kept = f"it keeps the {self._lines} records before, each a whole line"
        else:
            kept = "it is empty"
        return f"cannot write the log {self.path}: {error} ({kept})"
