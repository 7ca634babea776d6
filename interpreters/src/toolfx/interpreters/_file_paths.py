"""Path rules every file system here shares: valid paths, confinement below `within`,
informational symlink resolution in linear time, and creating a file's missing parents."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal, Protocol, TypeVar

from toolfx.core.runtime import FileError, FileErrorKind

__all__ = [
    "LOOP_REASON",
    "MAX_NAME_BYTES",
    "MAX_PATH_BYTES",
    "MAX_SYMLINKS",
    "Cursor",
    "beneath",
    "check_path",
    "check_read_window",
    "names_directory",
    "open_creating",
    "resolve_path",
    "split_target",
]

MAX_SYMLINKS: Final = 40
"""How many symlinks one lookup may follow before it fails (Linux's limit)."""

MAX_PATH_BYTES: Final = 4095
"""The longest path accepted, in UTF-8 bytes (Linux's PATH_MAX less the NUL)."""

MAX_NAME_BYTES: Final = 255
"""The longest name of one path component, in UTF-8 bytes (Linux's NAME_MAX)."""

LOOP_REASON: Final = "too many levels of symbolic links"
"""The reason given when a lookup follows more than `MAX_SYMLINKS` symlinks."""

D = TypeVar("D")


def check_path(path: str) -> None:
    """Raise INVALID_PATH unless `path` is absolute, UTF-8, NUL-free and within the lengths."""
    if not path.startswith("/"):
        raise FileError(FileErrorKind.INVALID_PATH, path, "not an absolute path")
    if "\0" in path:
        raise FileError(FileErrorKind.INVALID_PATH, path, "contains a NUL character")
    try:
        encoded = path.encode("utf-8")
    except UnicodeEncodeError as error:
        reason = f"is not valid UTF-8 (at character {error.start})"
        raise FileError(FileErrorKind.INVALID_PATH, path, reason) from None
    if len(encoded) > MAX_PATH_BYTES:
        reason = f"is {len(encoded)} bytes long, over {MAX_PATH_BYTES}"
        raise FileError(FileErrorKind.INVALID_PATH, path, reason)
    if any(len(name) > MAX_NAME_BYTES for name in encoded.split(b"/")):
        reason = f"has a name over {MAX_NAME_BYTES} bytes"
        raise FileError(FileErrorKind.INVALID_PATH, path, reason)


def beneath(path: str, within: str) -> str:
    """`path` relative to `within` ("." for `within` itself); OUTSIDE unless lexically below."""
    check_path(within)
    check_path(path)
    folder = within.rstrip("/")
    if path == folder or path == folder + "/":
        return "."
    if not path.startswith(folder + "/"):
        raise FileError(FileErrorKind.OUTSIDE, path, f"is not below {within}")
    return path[len(folder) + 1 :]


def names_directory(path: str) -> bool:
    """Whether `path` can only name a directory: it ends in `/`, `.` or `..` (or is `/`)."""
    return path.rpartition("/")[2] in ("", ".", "..")


def split_target(relative: str) -> tuple[str, str]:
    """A relative path's folder (`.` for none) and final name."""
    folder, _, name = relative.rpartition("/")
    return folder or ".", name


def check_read_window(offset: int, limit: int | None) -> None:
    """Raise ValueError for a negative offset or read limit (None means no limit)."""
    if offset < 0:
        raise ValueError(f"a read offset cannot be negative, not {offset}")
    if limit is not None and limit < 0:
        raise ValueError(f"a read limit cannot be negative, not {limit}")


def open_creating(
    folder: str,
    open_dir: Callable[[str], D],
    make_dir: Callable[[D, str], None],
    close: Callable[[D], None],
) -> D:
    """The directory at the relative `folder`, its missing directories made one by one.

    `open_dir` opens a relative path below the confining folder (raising NOT_FOUND when it is
    missing), `make_dir` makes a name in an opened directory (nothing if the name exists).
    Each step is opened again from the confining folder, so every directory made is below it.
    """
    try:
        return open_dir(folder)
    except FileError as error:
        if error.kind is not FileErrorKind.NOT_FOUND:
            raise
    current = open_dir(".")
    prefix = "."
    try:
        for name in folder.split("/"):
            if name in ("", "."):
                continue
            prefix = f"{prefix}/{name}"
            try:
                following = open_dir(prefix)
            except FileError as error:
                if error.kind is not FileErrorKind.NOT_FOUND:
                    raise
                make_dir(current, name)
                following = open_dir(prefix)
            close(current)
            current = following
    except BaseException:
        close(current)
        raise
    return current


class Cursor(Protocol):
    """A position in a file system that `resolve_path` moves name by name."""

    def enter(self, name: str) -> str | Literal["directory", "missing"]:
        """Step into `name`: a directory; a symlink's target (not stepped into); or missing
        (nothing there, or no directory: the cursor stays)."""
        ...

    def leave(self) -> None:
        """Step to the parent directory (the root stays the root)."""
        ...

    def to_root(self) -> None:
        """Step to the root directory."""
        ...


def resolve_path(path: str, cursor: Cursor) -> str:
    """`path` with every symlink resolved, like `os.path.realpath` (a missing tail is kept).

    The cursor starts at the root and moves once per name, so the work is linear in the
    path's length (plus at most `MAX_SYMLINKS` targets). More than `MAX_SYMLINKS` symlinks
    is a LOOP error naming `path`.
    """
    check_path(path)
    resolved: list[str] = []
    missing = 0  # how many names of `resolved`, at its end, are below something missing
    pending = path.split("/")[::-1]  # a stack: the next name is last
    followed = 0
    while pending:
        name = pending.pop()
        if name in ("", "."):
            continue
        if name == "..":
            if missing:
                missing -= 1
            elif resolved:
                cursor.leave()
            if resolved:
                resolved.pop()
            continue
        found = "missing" if missing else cursor.enter(name)
        if found in ("directory", "missing"):
            missing += found == "missing"
            resolved.append(name)
            continue
        followed += 1
        if followed > MAX_SYMLINKS:
            raise FileError(FileErrorKind.LOOP, path, LOOP_REASON)
        if found.startswith("/"):
            resolved.clear()
            cursor.to_root()
        pending.extend(found.split("/")[::-1])
    return "/" + "/".join(resolved)
