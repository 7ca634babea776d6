"""An in-memory POSIX-like file system: files, directories and symlinks, no IO.

Lookups follow the kernel's rules as `openat2(RESOLVE_BENEATH)` does for the local one: they
start at `within`; a name below a file is NOT_A_DIRECTORY, `..` goes to the parent of the
directory reached so far but never above `within` (OUTSIDE), an absolute symlink is OUTSIDE,
a trailing `/` follows a final symlink, and following more than `MAX_SYMLINKS` symlinks in one
lookup is LOOP (never a hang); a `resolved` lookup follows no symlink (one met is CHANGED).
`resolve` follows `os.path.realpath`. Modification times come
from `clock` (seconds).
"""

from __future__ import annotations

import itertools
import posixpath
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal, final

from toolfx.core.runtime import FileError, FileErrorKind, FileStat, FileSystem
from toolfx.interpreters._file_paths import (
    LOOP_REASON,
    MAX_SYMLINKS,
    beneath,
    check_read_window,
    names_directory,
    open_creating,
    resolve_path,
    split_target,
)

__all__ = ["MemoryFileSystem"]

_CHANGED_REASON = "a symlink is where the resolved path had none"


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

    async def stat(
        self, path: str, *, within: str, follow_symlinks: bool = True, resolved: bool = False
    ) -> FileStat:
        """What `path` names, its final symlink followed unless `follow_symlinks` is False."""
        return _file_stat(path, self._lookup(path, within, follow_symlinks, resolved))

    async def resolve(self, path: str) -> str:
        """`path` with every symlink resolved, like `os.path.realpath`; a loop is an error."""
        return resolve_path(path, _Cursor(self._root))

    async def read_bytes(
        self,
        path: str,
        *,
        within: str,
        offset: int = 0,
        limit: int | None = None,
        resolved: bool = False,
    ) -> bytes:
        """At most `limit` bytes of the file from `offset` on."""
        check_read_window(offset, limit)
        node = self._lookup(path, within, True, resolved)
        if isinstance(node, _Dir):
            raise FileError(FileErrorKind.IS_A_DIRECTORY, path, "is a directory")
        assert isinstance(node, _File)  # a followed symlink is never what a lookup ends on
        return node.data[offset:] if limit is None else node.data[offset : offset + limit]

    async def write_bytes(
        self, path: str, data: bytes, *, within: str, resolved: bool = False
    ) -> None:
        """Replace the content of the file `path` leads to, creating missing parents."""
        self._write(path, bytes(data), within, resolved)

    async def list_dir(
        self, path: str, *, within: str, resolved: bool = False
    ) -> tuple[FileStat, ...]:
        """The directory's entries sorted by name, symlinks among them not followed."""
        node = self._lookup(path, within, True, resolved)
        if not isinstance(node, _Dir):
            raise FileError(FileErrorKind.NOT_A_DIRECTORY, path, "not a directory")
        return tuple(
            _file_stat(posixpath.join(path, name), node.entries[name])
            for name in sorted(node.entries)
        )

    def add_file(self, path: str, content: str | bytes) -> None:
        """Write `content` (text as UTF-8) to `path` as `write_bytes` within `/` does."""
        data = content.encode() if isinstance(content, str) else bytes(content)
        self._write(path, data, "/", resolved=False)

    def add_dir(self, path: str) -> None:
        """Create the directory `path` and any missing parents (within `/`)."""
        self._folder_creating(path, beneath(path, "/"), self._root, resolved=False)

    def add_symlink(self, path: str, target: str) -> None:
        """Create a symlink at `path` pointing at `target` (absolute or relative; may dangle)."""
        if not target or "\0" in target:
            raise ValueError(f"a symlink target must be a non-empty path without NUL: {target!r}")
        relative = beneath(path, "/")
        if names_directory(relative):
            raise FileError(FileErrorKind.OTHER, path, "a symlink needs a name")
        folder, name = split_target(relative)
        directory = self._folder_creating(path, folder, self._root, resolved=False)
        if name in directory.entries:
            raise FileError(FileErrorKind.OTHER, path, "file exists")
        now = self._now_ns()
        directory.entries[name] = _Link(target, now)
        directory.mtime_ns = now

    def snapshot(self) -> dict[str, bytes]:
        """Every file's content by its path (symlinks not followed), sorted by path."""
        return dict(sorted(_files_below("", self._root)))

    def _write(self, path: str, data: bytes, within: str, resolved: bool) -> None:
        relative = beneath(path, within)
        base = self._folder(path, within)
        for _ in range(MAX_SYMLINKS + 1):
            if names_directory(relative):
                raise FileError(FileErrorKind.IS_A_DIRECTORY, path, "names a directory")
            folder, name = split_target(relative)
            directory = self._folder_creating(path, folder, base, resolved)
            existing = directory.entries.get(name)
            if isinstance(existing, _Link):
                if resolved:
                    raise FileError(FileErrorKind.CHANGED, path, _CHANGED_REASON)
                if existing.target.startswith("/"):
                    raise FileError(FileErrorKind.OUTSIDE, path, "an absolute symlink leads out")
                relative = existing.target if folder == "." else f"{folder}/{existing.target}"
                continue
            if isinstance(existing, _Dir):
                raise FileError(FileErrorKind.IS_A_DIRECTORY, path, "is a directory")
            now = self._now_ns()
            if existing is None:
                directory.mtime_ns = now
            directory.entries[name] = _File(data, now)
            return
        raise FileError(FileErrorKind.LOOP, path, LOOP_REASON)

    def _now_ns(self) -> int:
        return round(self._clock() * 1_000_000_000)

    def _folder(self, path: str, within: str) -> _Dir:
        """The directory `within` names (trusted: followed without confinement)."""
        node = _walk(path, within, [self._root], follow=True, confined=False, resolved=False)
        if not isinstance(node, _Dir):
            raise FileError(FileErrorKind.NOT_A_DIRECTORY, path, "not a directory")
        return node

    def _folder_creating(self, path: str, folder: str, base: _Dir, resolved: bool) -> _Dir:
        """The directory at `folder` below `base`, its missing directories made."""

        def open_dir(below: str) -> _Dir:
            node = _walk(path, below, [base], follow=True, confined=True, resolved=resolved)
            if not isinstance(node, _Dir):
                raise FileError(FileErrorKind.NOT_A_DIRECTORY, path, "not a directory")
            return node

        def make_dir(parent: _Dir, name: str) -> None:
            if name not in (".", "..") and name not in parent.entries:
                now = self._now_ns()
                parent.entries[name] = _Dir(now)
                parent.mtime_ns = now

        return open_creating(folder, open_dir, make_dir, lambda directory: None)

    def _lookup(self, path: str, within: str, follow: bool, resolved: bool) -> _Node:
        """The node `path` names below `within` (a final symlink followed when `follow`)."""
        relative = beneath(path, within)
        start = [self._folder(path, within)]
        return _walk(path, relative, start, follow=follow, confined=True, resolved=resolved)


def _walk(
    path: str,
    relative: str,
    directories: list[_Dir],
    *,
    follow: bool,
    confined: bool,
    resolved: bool,
) -> _Node:
    """The node `relative` names from `directories[-1]`, walked as the kernel walks.

    `directories` are the directories walked through, the start first; `confined` makes `..`
    above the start and absolute symlinks OUTSIDE (else they go to the root); `resolved` makes
    any symlink to follow CHANGED. Errors name `path`.
    """
    node: _Node = directories[-1]
    pending = relative.split("/")[::-1]  # a stack: the next name is last
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
            elif confined:
                raise FileError(FileErrorKind.OUTSIDE, path, "`..` leads out")
            node = directories[-1]
            continue
        child = node.entries.get(name)
        if child is None:
            raise FileError(FileErrorKind.NOT_FOUND, path, "no such file or directory")
        if isinstance(child, _Link) and (follow or pending):
            if resolved:
                raise FileError(FileErrorKind.CHANGED, path, _CHANGED_REASON)
            followed += 1
            if followed > MAX_SYMLINKS:
                raise FileError(FileErrorKind.LOOP, path, LOOP_REASON)
            if child.target.startswith("/"):
                if confined:
                    raise FileError(FileErrorKind.OUTSIDE, path, "an absolute symlink leads out")
                del directories[1:]
            node = directories[-1]
            pending.extend(child.target.split("/")[::-1])
            continue
        if isinstance(child, _Dir):
            directories.append(child)
        node = child
    return node


@final
class _Cursor:
    """A `Cursor` over the in-memory directories for `resolve_path`."""

    __slots__ = ("_directories",)

    def __init__(self, root: _Dir) -> None:
        self._directories = [root]

    def enter(self, name: str) -> str | Literal["directory", "missing"]:
        child = self._directories[-1].entries.get(name)
        if isinstance(child, _Link):
            return child.target
        if isinstance(child, _Dir):
            self._directories.append(child)
            return "directory"
        return "missing"

    def leave(self) -> None:
        if len(self._directories) > 1:
            self._directories.pop()

    def to_root(self) -> None:
        del self._directories[1:]


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
