"""This machine's file system: os calls done inline (sync) or in worker threads (anyio).

Every `OSError` becomes a `FileError` naming the path the caller gave. Writes go to a temporary
file in the target's directory that then replaces the target (`os.replace`), so a reader sees
the old content or the new, never a part; an existing file keeps its permission bits.
"""

from __future__ import annotations

import errno
import os
import posixpath
import secrets
import stat
from contextlib import suppress
from typing import Final, final

import anyio.to_thread

from toolfx.core.files import FileError, FileErrorKind, FileStat, FileSystem
from toolfx.interpreters.file_paths import (
    check_path,
    check_read_limit,
    check_write_target,
    resolve_path,
)

__all__ = ["AnyioFileSystem", "LocalFileSystem"]

_KINDS: Final = {
    errno.ENOENT: FileErrorKind.NOT_FOUND,
    errno.ENOTDIR: FileErrorKind.NOT_A_DIRECTORY,
    errno.EISDIR: FileErrorKind.IS_A_DIRECTORY,
    errno.EACCES: FileErrorKind.PERMISSION,
    errno.EPERM: FileErrorKind.PERMISSION,
}


@final
class LocalFileSystem(FileSystem):
    """This machine's file system; each operation runs inline (for the sync interpreter)."""

    __slots__ = ()

    async def stat(self, path: str, *, follow_symlinks: bool = True) -> FileStat:
        """`os.stat` (or `os.lstat` when not following symlinks) of `path`."""
        return _stat(path, follow_symlinks)

    async def resolve(self, path: str) -> str:
        """`path` with every symlink resolved, like `os.path.realpath`; a loop is an error."""
        return _resolve(path)

    async def read_bytes(self, path: str, limit: int | None = None) -> bytes:
        """The file's bytes, at most `limit` (not negative) of them when given."""
        return _read_bytes(path, limit)

    async def write_bytes(self, path: str, data: bytes) -> None:
        """Write a temporary file beside the resolved target, then `os.replace` the target."""
        _write_bytes(path, data)

    async def list_dir(self, path: str) -> tuple[FileStat, ...]:
        """`os.scandir` sorted by name, each entry `lstat`ed."""
        return _list_dir(path)


@final
class AnyioFileSystem(FileSystem):
    """This machine's file system; each operation runs in a worker thread (`anyio.to_thread`)."""

    __slots__ = ()

    async def stat(self, path: str, *, follow_symlinks: bool = True) -> FileStat:
        """`os.stat` (or `os.lstat` when not following symlinks) of `path`."""
        return await anyio.to_thread.run_sync(_stat, path, follow_symlinks)

    async def resolve(self, path: str) -> str:
        """`path` with every symlink resolved, like `os.path.realpath`; a loop is an error."""
        return await anyio.to_thread.run_sync(_resolve, path)

    async def read_bytes(self, path: str, limit: int | None = None) -> bytes:
        """The file's bytes, at most `limit` (not negative) of them when given."""
        return await anyio.to_thread.run_sync(_read_bytes, path, limit)

    async def write_bytes(self, path: str, data: bytes) -> None:
        """Write a temporary file beside the resolved target, then `os.replace` the target."""
        await anyio.to_thread.run_sync(_write_bytes, path, data)

    async def list_dir(self, path: str) -> tuple[FileStat, ...]:
        """`os.scandir` sorted by name, each entry `lstat`ed."""
        return await anyio.to_thread.run_sync(_list_dir, path)


def _error(path: str, error: OSError) -> FileError:
    kind = _KINDS.get(error.errno or 0, FileErrorKind.OTHER)
    return FileError(kind, path, error.strerror or str(error))


def _file_stat(path: str, status: os.stat_result) -> FileStat:
    mode = status.st_mode
    if stat.S_ISREG(mode):
        return FileStat(path, "file", status.st_size, status.st_mtime_ns)
    if stat.S_ISLNK(mode):
        return FileStat(path, "symlink", status.st_size, status.st_mtime_ns)
    if stat.S_ISDIR(mode):
        return FileStat(path, "directory", 0, status.st_mtime_ns)
    return FileStat(path, "other", 0, status.st_mtime_ns)


def _stat(path: str, follow_symlinks: bool) -> FileStat:
    check_path(path)
    try:
        return _file_stat(path, os.stat(path, follow_symlinks=follow_symlinks))
    except OSError as error:
        raise _error(path, error) from error


def _readlink(path: str) -> str | None:
    try:
        return os.readlink(path) if stat.S_ISLNK(os.lstat(path).st_mode) else None
    except OSError:  # missing, or below something that is no directory: kept as written
        return None


def _resolve(path: str) -> str:
    return resolve_path(path, _readlink)


def _read_bytes(path: str, limit: int | None) -> bytes:
    check_path(path)
    check_read_limit(limit)
    try:
        with open(path, "rb") as file:
            return file.read() if limit is None else file.read(limit)
    except OSError as error:
        raise _error(path, error) from error


def _write_bytes(path: str, data: bytes) -> None:
    target = _resolve(path)
    check_write_target(path, target)
    directory = posixpath.dirname(target)
    try:
        os.makedirs(directory, exist_ok=True)
    except FileExistsError as error:  # a file where a parent directory should be
        raise FileError(FileErrorKind.NOT_A_DIRECTORY, path, "not a directory") from error
    except OSError as error:
        raise _error(path, error) from error
    try:
        mode = _existing_mode(path, target)
        temporary = posixpath.join(directory, f".toolfx-{secrets.token_hex(8)}.tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        try:
            with os.fdopen(descriptor, "wb") as file:
                if mode is not None:
                    os.fchmod(file.fileno(), mode)
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, target)
        except BaseException:
            with suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError as error:
        raise _error(path, error) from error


def _existing_mode(path: str, target: str) -> int | None:
    """The permission bits of the file at `target`; None when there is none yet."""
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(mode):
        raise FileError(FileErrorKind.IS_A_DIRECTORY, path, "is a directory")
    return stat.S_IMODE(mode)


def _list_dir(path: str) -> tuple[FileStat, ...]:
    check_path(path)
    entries: list[FileStat] = []
    try:
        with os.scandir(path) as found:
            for entry in found:
                with suppress(FileNotFoundError):  # removed since the directory was read
                    status = entry.stat(follow_symlinks=False)
                    entries.append(_file_stat(posixpath.join(path, entry.name), status))
    except OSError as error:
        raise _error(path, error) from error
    return tuple(sorted(entries, key=lambda entry: entry.path))
