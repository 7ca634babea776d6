"""An in-memory POSIX-like file system: files, directories and symlinks, no IO.

Lookups follow the kernel's rules: a name below a file is NOT_A_DIRECTORY, `..` goes to the
parent of the directory reached so far, a trailing `/` follows a final symlink, and following
more than `MAX_SYMLINKS` symlinks in one lookup fails (so a loop is an error, never a hang).
`resolve` follows `os.path.realpath`. Modification times come from `clock` (seconds).
"""

from __future__ import annotations

import itertools
import posixpath
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import final

from toolfx.core.files import FileError, FileErrorKind, FileStat, FileSystem
from toolfx.interpreters.file_paths import (
    LOOP_REASON,
    MAX_SYMLINKS,
    check_path,
    check_read_limit,
    check_write_target,
    names_directory,
    resolve_path,
)

__all__ = ["MemoryFileSystem"]


@final
@dataclass(frozen=True, slots=True)
class _File:
    data: bytes
    mtime_ns: int


@final
@dataclass(frozen=True, slots=True)
class _Link:
    target: str
    mtime_ns: int


@final
@dataclass(slots=True)
class _Dir:
    mtime_ns: int
    entries: dict[str, _Node] = field(default_factory=dict)


_Node = _File | _Link | _Dir


@final
class MemoryFileSystem(FileSystem):
    """A file system held in memory; its async operations complete at once, without yielding."""

    __slots__ = ("_clock", "_root")

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self._clock: Callable[[], float] = itertools.count(1).__next__ if clock is None else clock
        self._root = _Dir(self._now_ns())

    @classmethod
    def from_files(
        cls, files: Mapping[str, str | bytes], clock: Callable[[], float] | None = None
    ) -> MemoryFileSystem:
        """A file system holding `files` (text is stored as UTF-8), parents created as needed."""
        memory = cls(clock)
        for path, content in files.items():
            memory.add_file(path, content)
        return memory

    async def stat(self, path: str, *, follow_symlinks: bool = True) -> FileStat:
        """What `path` names, its final symlink followed unless `follow_symlinks` is False."""
        return _file_stat(path, self._lookup(path, follow=follow_symlinks))

    async def resolve(self, path: str) -> str:
        """`path` with every symlink resolved, like `os.path.realpath`; a loop is an error."""
        return resolve_path(path, self._readlink)

    async def read_bytes(self, path: str, limit: int | None = None) -> bytes:
        """The file's bytes, at most `limit` (not negative) of them when given."""
        check_path(path)
        check_read_limit(limit)
        node = self._lookup(path, follow=True)
        if isinstance(node, _Dir):
            raise FileError(FileErrorKind.IS_A_DIRECTORY, path, "is a directory")
        assert isinstance(node, _File)  # a followed symlink is never what a lookup ends on
        return node.data if limit is None else node.data[:limit]

    async def write_bytes(self, path: str, data: bytes) -> None:
        """Replace the content of the file `path` resolves to, creating missing parents."""
        self._write(path, bytes(data))

    async def list_dir(self, path: str) -> tuple[FileStat, ...]:
        """The directory's entries sorted by name, symlinks among them not followed."""
        node = self._lookup(path, follow=True)
        if not isinstance(node, _Dir):
            raise FileError(FileErrorKind.NOT_A_DIRECTORY, path, "not a directory")
        return tuple(
            _file_stat(posixpath.join(path, name), node.entries[name])
            for name in sorted(node.entries)
        )

    def add_file(self, path: str, content: str | bytes) -> None:
        """Write `content` (text as UTF-8) to `path` as `write_bytes` does, without awaiting."""
        self._write(path, content.encode() if isinstance(content, str) else bytes(content))

    def add_dir(self, path: str) -> None:
        """Create the directory `path` (its symlinks followed) and any missing parents."""
        target = resolve_path(path, self._readlink)
        self._make_dirs(path, [name for name in target.split("/") if name])

    def add_symlink(self, path: str, target: str) -> None:
        """Create a symlink at `path` pointing at `target` (absolute or relative; may dangle)."""
        if not target or "\0" in target:
            raise ValueError(f"a symlink target must be a non-empty path without NUL: {target!r}")
        check_path(path)
        if names_directory(path):
            raise FileError(FileErrorKind.OTHER, path, "a symlink needs a name")
        parent, _, name = path.rpartition("/")
        resolved = resolve_path(parent or "/", self._readlink)
        directory = self._make_dirs(path, [part for part in resolved.split("/") if part])
        if name in directory.entries:
            raise FileError(FileErrorKind.OTHER, path, "file exists")
        now = self._now_ns()
        directory.entries[name] = _Link(target, now)
        directory.mtime_ns = now

    def snapshot(self) -> dict[str, bytes]:
        """Every file's content by its path (symlinks not followed), sorted by path."""
        return dict(sorted(_files_below("", self._root)))

    def _write(self, path: str, data: bytes) -> None:
        target = resolve_path(path, self._readlink)
        check_write_target(path, target)
        *parents, name = target[1:].split("/")
        directory = self._make_dirs(path, parents)
        now = self._now_ns()
        existing = directory.entries.get(name)
        if isinstance(existing, _Dir):
            raise FileError(FileErrorKind.IS_A_DIRECTORY, path, "is a directory")
        if existing is None:
            directory.mtime_ns = now
        directory.entries[name] = _File(data, now)

    def _now_ns(self) -> int:
        return round(self._clock() * 1_000_000_000)

    def _make_dirs(self, path: str, names: list[str]) -> _Dir:
        """The directory at /`names` (no symlinks among them), created where missing."""
        directory = self._root
        for name in names:
            child = directory.entries.get(name)
            if child is None:
                now = self._now_ns()
                child = directory.entries[name] = _Dir(now)
                directory.mtime_ns = now
            if not isinstance(child, _Dir):
                raise FileError(FileErrorKind.NOT_A_DIRECTORY, path, "not a directory")
            directory = child
        return directory

    def _readlink(self, path: str) -> str | None:
        try:
            node = self._lookup(path, follow=False)
        except FileError:  # missing, or below something that is no directory
            return None
        return node.target if isinstance(node, _Link) else None

    def _lookup(self, path: str, *, follow: bool) -> _Node:
        """The node `path` names (a final symlink followed when `follow`), as the kernel walks."""
        check_path(path)
        directories = [self._root]  # the directories walked through, root first
        node: _Node = self._root
        pending = path.split("/")[::-1]  # a stack: the next name is last
        followed = 0
        while pending:
            name = pending.pop()
            if not isinstance(node, _Dir):
                raise FileError(FileErrorKind.NOT_A_DIRECTORY, path, "not a directory")
            if name in ("", "."):
                continue
            if name == "..":
                if len(directories) > 1:
                    directories.pop()
                node = directories[-1]
                continue
            child = node.entries.get(name)
            if child is None:
                raise FileError(FileErrorKind.NOT_FOUND, path, "no such file or directory")
            if isinstance(child, _Link) and (follow or pending):
                followed += 1
                if followed > MAX_SYMLINKS:
                    raise FileError(FileErrorKind.OTHER, path, LOOP_REASON)
                if child.target.startswith("/"):
                    del directories[1:]
                node = directories[-1]
                pending.extend(child.target.split("/")[::-1])
                continue
            if isinstance(child, _Dir):
                directories.append(child)
            node = child
        return node


def _file_stat(path: str, node: _Node) -> FileStat:
    match node:
        case _File(data=data, mtime_ns=mtime_ns):
            return FileStat(path, "file", len(data), mtime_ns)
        case _Link(target=target, mtime_ns=mtime_ns):
            return FileStat(
                path, "symlink", len(target.encode("utf-8", "surrogateescape")), mtime_ns
            )
        case _Dir(mtime_ns=mtime_ns):
            return FileStat(path, "directory", 0, mtime_ns)


def _files_below(prefix: str, directory: _Dir) -> Iterator[tuple[str, bytes]]:
    for name, node in directory.entries.items():
        if isinstance(node, _File):
            yield f"{prefix}/{name}", node.data
        elif isinstance(node, _Dir):
            yield from _files_below(f"{prefix}/{name}", node)
