"""Path rules every file system here shares: which paths are valid, and symlink resolution."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from toolfx.core.files import FileError, FileErrorKind

__all__ = [
    "LOOP_REASON",
    "MAX_SYMLINKS",
    "check_path",
    "check_read_limit",
    "check_write_target",
    "names_directory",
    "resolve_path",
]

MAX_SYMLINKS: Final = 40
"""How many symlinks one lookup may follow before it fails (Linux's limit)."""

LOOP_REASON: Final = "too many levels of symbolic links"
"""The reason given when a lookup follows more than `MAX_SYMLINKS` symlinks."""


def check_path(path: str) -> None:
    """Raise INVALID_PATH unless `path` is absolute and free of NUL characters."""
    if not path.startswith("/"):
        raise FileError(FileErrorKind.INVALID_PATH, path, "not an absolute path")
    if "\0" in path:
        raise FileError(FileErrorKind.INVALID_PATH, path, "contains a NUL character")


def names_directory(path: str) -> bool:
    """Whether `path` can only name a directory: it ends in `/`, `.` or `..` (or is `/`)."""
    return path.rpartition("/")[2] in ("", ".", "..")


def check_read_limit(limit: int | None) -> None:
    """Raise ValueError for a negative read limit (None means no limit)."""
    if limit is not None and limit < 0:
        raise ValueError(f"a read limit cannot be negative, not {limit}")


def check_write_target(path: str, target: str) -> None:
    """Raise IS_A_DIRECTORY when `path` (resolved to `target`) can only name a directory."""
    if names_directory(path) or target == "/":
        raise FileError(FileErrorKind.IS_A_DIRECTORY, path, "names a directory")


def resolve_path(path: str, readlink: Callable[[str], str | None]) -> str:
    """`path` with every symlink resolved, like `os.path.realpath` (a missing tail is kept).

    `readlink` gives a path's symlink target, or None when it is no symlink (or is missing).
    `..` removes the last resolved name. A chain of more than `MAX_SYMLINKS` symlinks (a loop,
    most likely) fails with an OTHER error naming `path`.
    """
    check_path(path)
    resolved: list[str] = []
    pending = path.split("/")[::-1]  # a stack: the next name is last
    followed = 0
    while pending:
        name = pending.pop()
        if name in ("", "."):
            continue
        if name == "..":
            if resolved:
                resolved.pop()
            continue
        target = readlink("/" + "/".join([*resolved, name]))
        if target is None:
            resolved.append(name)
            continue
        followed += 1
        if followed > MAX_SYMLINKS:
            raise FileError(FileErrorKind.OTHER, path, LOOP_REASON)
        if target.startswith("/"):
            resolved.clear()
        pending.extend(target.split("/")[::-1])
    return "/" + "/".join(resolved)
