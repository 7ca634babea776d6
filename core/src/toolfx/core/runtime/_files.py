"""The file-system capability leaves use: absolute POSIX paths confined to a trusted folder
(`within`), typed errors, no IO in core."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal, Protocol, final

__all__ = ["FileError", "FileErrorKind", "FileKind", "FileStat", "FileSystem"]

FileKind = Literal["file", "directory", "symlink", "other"]
"""What a path names (a symlink only when it is not followed)."""


@final
@dataclass(frozen=True, slots=True)
class FileStat:
    """What a path is: its absolute path, kind, size in bytes and modification time (ns)."""

    path: str
    """The path asked about (a directory entry: the directory's path joined with its name)."""
    kind: FileKind
    size: int
    """A file's length, a symlink's target length; 0 for a directory or anything else."""
    mtime_ns: int


class FileErrorKind(enum.StrEnum):
    """Why a file-system operation failed."""

    NOT_FOUND = "not-found"
    NOT_A_DIRECTORY = "not-a-directory"
    IS_A_DIRECTORY = "is-a-directory"
    PERMISSION = "permission"
    INVALID_PATH = "invalid-path"
    OUTSIDE = "outside"
    """The path leads out of the folder the operation is confined to (a symlink or `..`)."""
    LOOP = "loop"
    """More than 40 symlinks were followed in one lookup (a loop, most likely)."""
    CHANGED = "changed"
    """A symlink is where the path, resolved before, had none: it changed since (a race)."""
    OTHER = "other"


class FileError(Exception):
    """A file-system operation failed: the kind, the path it failed on and the reason."""

    __module__ = "toolfx.core"

    def __init__(self, kind: FileErrorKind, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.kind = kind
        self.path = path
        self.reason = reason


class FileSystem(Protocol):
    """File operations confined to a trusted folder.

    Every operation but `resolve` takes `within`: an absolute folder the caller trusts (the
    workspace root, or a folder the user approved). `path` is absolute and lexically at or below
    `within`; the rest of it is resolved relative to an open handle of `within`, never as a
    string again: a symlink or `..` that stays below is followed, one that leads out (an
    absolute symlink always does) is an OUTSIDE error, more than 40 symlinks a LOOP error.
    A relative path, NUL, a name that is not UTF-8, a name over 255 bytes or a path over 4,095
    bytes is INVALID_PATH.

    `resolved=True` says the path came from `resolve` (no symlink left in it): then no symlink
    below `within` is followed at all, and meeting one (put there since) is a CHANGED error, so
    what a check decided for the resolved path is what the operation acts on.
    """

    async def stat(
        self, path: str, *, within: str, follow_symlinks: bool = True, resolved: bool = False
    ) -> FileStat:
        """What `path` is; NOT_FOUND if nothing is there."""
        ...

    async def resolve(self, path: str) -> str:
        """Informational: the absolute path with every symlink resolved (a missing tail kept as
        written), in time linear in the path's length; never use it to confine an operation."""
        ...

    async def read_bytes(
        self,
        path: str,
        *,
        within: str,
        offset: int = 0,
        limit: int | None = None,
        resolved: bool = False,
    ) -> bytes:
        """The file's bytes from `offset` on (at most `limit` of them when given)."""
        ...

    async def write_bytes(
        self, path: str, data: bytes, *, within: str, resolved: bool = False
    ) -> None:
        """Replace the file's content atomically, creating missing parent directories.

        A symlink that stays below `within` is followed: the file it leads to is written, the
        link stays. A path ending in `/`, `.` or `..` is IS_A_DIRECTORY and writes nothing.
        """
        ...

    async def list_dir(
        self, path: str, *, within: str, resolved: bool = False
    ) -> tuple[FileStat, ...]:
        """The directory's entries sorted by name, symlinks among them not followed."""
        ...
