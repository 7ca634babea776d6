"""This machine's file system: os calls done inline (sync) or in worker threads (anyio).

Each operation opens its `within` folder and resolves the rest of the path beneath that handle
(`beneath.open_beneath`), then works only through descriptors: stat by `fstat` or `fstatat`
on the parent's handle, listing by the folder's handle, reading by `pread` on the file's.
Writes go to a temporary file made (O_EXCL | O_NOFOLLOW) in the target folder's handle,
flushed and renamed over the target relative to that same handle, so a reader sees the old
content or the new, never a part; an existing file keeps its permission bits. Every `OSError`
becomes a `FileError` naming the path the caller gave; every descriptor is closed. A `resolved`
operation follows no symlink below `within` (RESOLVE_NO_SYMLINKS): one met is CHANGED.
"""

from __future__ import annotations

import errno
import os
import posixpath
import secrets
import stat
from collections.abc import Callable
from contextlib import suppress
from typing import Final, Literal, TypeVar, final

import anyio.to_thread

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
from toolfx.interpreters._os.beneath import Lookup, open_beneath

__all__ = ["AnyioFileSystem", "LocalFileSystem"]

T = TypeVar("T")

_KINDS: Final = {
    errno.ENOENT: FileErrorKind.NOT_FOUND,
    errno.ENOTDIR: FileErrorKind.NOT_A_DIRECTORY,
    errno.EISDIR: FileErrorKind.IS_A_DIRECTORY,
    errno.EACCES: FileErrorKind.PERMISSION,
    errno.EPERM: FileErrorKind.PERMISSION,
    errno.EXDEV: FileErrorKind.OUTSIDE,
    errno.ELOOP: FileErrorKind.LOOP,
    errno.ENAMETOOLONG: FileErrorKind.INVALID_PATH,
}

_CHUNK: Final = 1 << 20
"""How many bytes one `pread` asks for at most."""

_FOLDER: Final = os.O_PATH | os.O_DIRECTORY

_CHANGED_REASON: Final = "a symlink is where the resolved path had none"


@final
class _Local:
    """The operations, done inline; `lookup` chooses how paths are resolved beneath a handle."""

    __slots__ = ("lookup",)

    def __init__(self, lookup: Lookup) -> None:
        self.lookup: Lookup = lookup

    def stat(self, path: str, within: str, follow_symlinks: bool, resolved: bool) -> FileStat:
        relative = beneath(path, within)
        folder, name = split_target(relative)
        with _Handles(path, within, self.lookup, resolved) as handles:
            if follow_symlinks or name in ("", ".", ".."):
                return _file_stat(path, os.fstat(handles.open(relative, os.O_PATH)))
            parent = handles.open(folder, _FOLDER)
            return _file_stat(path, os.stat(name, dir_fd=parent, follow_symlinks=False))

    def read_bytes(
        self, path: str, within: str, offset: int, limit: int | None, resolved: bool
    ) -> bytes:
        check_read_window(offset, limit)
        relative = beneath(path, within)
        with _Handles(path, within, self.lookup, resolved) as handles:
            flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY
            file = handles.open(relative, flags)
            mode = os.fstat(file).st_mode
            if stat.S_ISDIR(mode):
                raise FileError(FileErrorKind.IS_A_DIRECTORY, path, "is a directory")
            if not stat.S_ISREG(mode):
                raise FileError(FileErrorKind.OTHER, path, "is not a regular file")
            return _pread(file, offset, limit)

    def write_bytes(self, path: str, data: bytes, within: str, resolved: bool) -> None:
        relative = beneath(path, within)
        with _Handles(path, within, self.lookup, resolved) as handles:
            for _ in range(MAX_SYMLINKS + 1):
                if names_directory(relative):
                    raise FileError(FileErrorKind.IS_A_DIRECTORY, path, "names a directory")
                folder, name = split_target(relative)
                parent = handles.keep(
                    open_creating(
                        folder,
                        lambda below: handles.open(below, _FOLDER, keep=False),
                        _make_dir,
                        os.close,
                    )
                )
                target = _link_target(name, parent)
                if target is None:
                    _replace(path, name, parent, data)
                    return
                if resolved:
                    raise FileError(FileErrorKind.CHANGED, path, _CHANGED_REASON)
                if target.startswith("/"):
                    raise FileError(FileErrorKind.OUTSIDE, path, "an absolute symlink leads out")
                relative = target if folder == "." else f"{folder}/{target}"
            raise FileError(FileErrorKind.LOOP, path, LOOP_REASON)

    def list_dir(self, path: str, within: str, resolved: bool) -> tuple[FileStat, ...]:
        relative = beneath(path, within)
        entries: list[FileStat] = []
        with _Handles(path, within, self.lookup, resolved) as handles:
            folder = handles.open(relative, os.O_RDONLY | os.O_DIRECTORY)
            for name in os.listdir(folder):
                with suppress(FileNotFoundError):  # removed since the directory was read
                    status = os.stat(name, dir_fd=folder, follow_symlinks=False)
                    entries.append(_file_stat(posixpath.join(path, name), status))
        return tuple(sorted(entries, key=lambda entry: entry.path))


@final
class _Handles:
    """The handle of `within` and every descriptor opened beneath it (by `lookup`; following
    no symlink when `resolved`), closed on exit; an `OSError` inside becomes a `FileError`
    naming `path`."""

    __slots__ = ("_lookup", "_opened", "_path", "_resolved", "_within")

    def __init__(self, path: str, within: str, lookup: Lookup, resolved: bool) -> None:
        self._path = path
        self._within = within
        self._lookup: Lookup = lookup
        self._resolved = resolved
        self._opened: list[int] = []

    def __enter__(self) -> _Handles:
        try:
            self._opened.append(os.open(self._within, _FOLDER | os.O_CLOEXEC))
        except OSError as error:
            raise _error(self._path, error) from error
        return self

    def __exit__(self, kind: object, error: BaseException | None, trace: object) -> None:
        for descriptor in self._opened:
            os.close(descriptor)
        if isinstance(error, OSError):
            raise _error(self._path, error) from error

    def open(self, relative: str, flags: int, *, keep: bool = True) -> int:
        """`relative` opened beneath `within`; closed on exit unless `keep` is False."""
        try:
            opened = open_beneath(
                self._opened[0], relative, flags, lookup=self._lookup, no_symlinks=self._resolved
            )
        except OSError as error:
            if self._resolved and error.errno == errno.ELOOP:
                raise FileError(FileErrorKind.CHANGED, self._path, _CHANGED_REASON) from error
            raise _error(self._path, error) from error
        return self.keep(opened) if keep else opened

    def keep(self, descriptor: int) -> int:
        """Close `descriptor` on exit."""
        self._opened.append(descriptor)
        return descriptor


def _make_dir(parent: int, name: str) -> None:
    with suppress(FileExistsError):
        os.mkdir(name, 0o777, dir_fd=parent)


def _link_target(name: str, parent: int) -> str | None:
    """The target of the symlink `name` in `parent`; None when it is none (or missing)."""
    try:
        status = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return os.readlink(name, dir_fd=parent) if stat.S_ISLNK(status.st_mode) else None


def _replace(path: str, name: str, parent: int, data: bytes) -> None:
    """Write `data` to a temporary file in `parent`, then rename it over `name` there."""
    mode = _existing_mode(path, name, parent)
    temporary = f".toolfx-{secrets.token_hex(8)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    descriptor = os.open(temporary, flags, 0o666, dir_fd=parent)
    try:
        try:
            if mode is not None:
                os.fchmod(descriptor, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view) :]
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.rename(temporary, name, src_dir_fd=parent, dst_dir_fd=parent)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary, dir_fd=parent)
        raise


def _existing_mode(path: str, name: str, parent: int) -> int | None:
    """The permission bits of the file `name` in `parent`; None when there is none yet."""
    try:
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(mode):
        raise FileError(FileErrorKind.IS_A_DIRECTORY, path, "is a directory")
    return stat.S_IMODE(mode)


def _pread(file: int, offset: int, limit: int | None) -> bytes:
    """At most `limit` bytes from `offset` on, read in chunks."""
    chunks: list[bytes] = []
    position, remaining = offset, limit
    while remaining is None or remaining > 0:
        chunk = os.pread(file, _CHUNK if remaining is None else min(_CHUNK, remaining), position)
        if not chunk:
            break
        chunks.append(chunk)
        position += len(chunk)
        remaining = None if remaining is None else remaining - len(chunk)
    return b"".join(chunks)


@final
class _RealCursor:
    """A `Cursor` over this machine's folders, holding one O_PATH handle."""

    __slots__ = ("handle",)

    def __init__(self) -> None:
        self.handle = os.open("/", _FOLDER | os.O_CLOEXEC)

    def enter(self, name: str) -> str | Literal["directory", "missing"]:
        try:
            status = os.stat(name, dir_fd=self.handle, follow_symlinks=False)
            if stat.S_ISLNK(status.st_mode):
                return os.readlink(name, dir_fd=self.handle)
            if not stat.S_ISDIR(status.st_mode):
                return "missing"
            self._move(os.open(name, _FOLDER | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.handle))
        except OSError:  # missing, unreadable, or swapped meanwhile: kept as written
            return "missing"
        return "directory"

    def leave(self) -> None:
        self._move(os.open("..", _FOLDER | os.O_CLOEXEC, dir_fd=self.handle))

    def to_root(self) -> None:
        self._move(os.open("/", _FOLDER | os.O_CLOEXEC))

    def _move(self, handle: int) -> None:
        os.close(self.handle)
        self.handle = handle


def _resolve(path: str) -> str:
    cursor = _RealCursor()
    try:
        return resolve_path(path, cursor)
    except OSError as error:
        raise _error(path, error) from error
    finally:
        os.close(cursor.handle)


def _error(path: str, error: OSError) -> FileError:
    kind = _KINDS.get(error.errno or 0, FileErrorKind.OTHER)
    reason = LOOP_REASON if kind is FileErrorKind.LOOP else error.strerror or str(error)
    return FileError(kind, path, reason)


def _file_stat(path: str, status: os.stat_result) -> FileStat:
    mode = status.st_mode
    if stat.S_ISREG(mode):
        return FileStat(path, "file", status.st_size, status.st_mtime_ns)
    if stat.S_ISLNK(mode):
        return FileStat(path, "symlink", status.st_size, status.st_mtime_ns)
    if stat.S_ISDIR(mode):
        return FileStat(path, "directory", 0, status.st_mtime_ns)
    return FileStat(path, "other", 0, status.st_mtime_ns)


class _MachineFiles(FileSystem):
    """This machine's file system: every operation of `_Local`, run as `_run` says."""

    __slots__ = ("_local",)

    def __init__(self, *, lookup: Lookup = "openat2") -> None:
        self._local = _Local(lookup)

    async def _run(self, operation: Callable[[], T]) -> T:
        raise NotImplementedError

    async def stat(
        self, path: str, *, within: str, follow_symlinks: bool = True, resolved: bool = False
    ) -> FileStat:
        """`fstat` of `path` opened beneath `within` (`fstatat` in its folder when not following
        a final symlink)."""
        return await self._run(lambda: self._local.stat(path, within, follow_symlinks, resolved))

    async def resolve(self, path: str) -> str:
        """`path` with every symlink resolved, like `os.path.realpath`; a loop is an error."""
        return await self._run(lambda: _resolve(path))

    async def read_bytes(
        self,
        path: str,
        *,
        within: str,
        offset: int = 0,
        limit: int | None = None,
        resolved: bool = False,
    ) -> bytes:
        """At most `limit` bytes from `offset` of the regular file `path` beneath `within`."""
        return await self._run(
            lambda: self._local.read_bytes(path, within, offset, limit, resolved)
        )

    async def write_bytes(
        self, path: str, data: bytes, *, within: str, resolved: bool = False
    ) -> None:
        """Write a temporary file in the target's folder handle, then rename it over the target."""
        await self._run(lambda: self._local.write_bytes(path, data, within, resolved))

    async def list_dir(
        self, path: str, *, within: str, resolved: bool = False
    ) -> tuple[FileStat, ...]:
        """The folder's names, sorted, each `fstatat`ed in its handle without following."""
        return await self._run(lambda: self._local.list_dir(path, within, resolved))


@final
class LocalFileSystem(_MachineFiles):
    """This machine's file system; each operation runs inline (for the sync interpreter).

    `lookup="walk"` resolves by the component walk even where the kernel has `openat2`.
    """

    __slots__ = ()

    async def _run(self, operation: Callable[[], T]) -> T:
        return operation()


@final
class AnyioFileSystem(_MachineFiles):
    """This machine's file system; each operation runs in a worker thread (`anyio.to_thread`).

    `lookup="walk"` resolves by the component walk even where the kernel has `openat2`.
    """

    __slots__ = ()

    async def _run(self, operation: Callable[[], T]) -> T:
        return await anyio.to_thread.run_sync(operation)
