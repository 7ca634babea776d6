"""The file-system capability leaves use: absolute POSIX paths, typed errors, no IO in core."""

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
    """File operations on absolute POSIX paths; a relative path is an INVALID_PATH error."""

    async def stat(self, path: str, *, follow_symlinks: bool = True) -> FileStat:
        """What `path` is; NOT_FOUND if nothing is there."""
        ...

    async def resolve(self, path: str) -> str:
        """The absolute path with every symlink resolved (a missing tail is kept as written)."""
        ...

    async def read_bytes(self, path: str, limit: int | None = None) -> bytes:
        """The file's bytes (at most `limit` of them when given)."""
        ...

    async def write_bytes(self, path: str, data: bytes) -> None:
        """Replace the file's content atomically, creating missing parent directories.

        A symlink is followed: the file it resolves to is written, the link stays.
        """
        ...

    async def list_dir(self, path: str) -> tuple[FileStat, ...]:
        """The directory's entries sorted by name, symlinks among them not followed."""
        ...
