"""Opening a path beneath a directory handle without ever leaving it: `openat2(2)` with
RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS where the kernel has it, else a component walk.

The walk holds one O_PATH handle at a time, opens each name with O_NOFOLLOW, follows a
symlink itself (its target read from the handle of the link just checked; an absolute one, or
`..` above the starting handle, is EXDEV), and remembers the device and inode of every folder
it went through, so `..` must land on the very folder it came from. Errors are `OSError`s
with the kernel's numbers: EXDEV outside, ELOOP for more than 40 symlinks, or for any
symlink at all with `no_symlinks` (RESOLVE_NO_SYMLINKS).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import stat
from typing import Final, Literal, final

__all__ = ["Lookup", "open_beneath"]

Lookup = Literal["openat2", "walk"]
"""How a path is resolved beneath a handle: `openat2` where the kernel has it, or the walk."""

_MAX_SYMLINKS: Final = 40
_RESOLVE_NO_MAGICLINKS: Final = 0x02
_RESOLVE_NO_SYMLINKS: Final = 0x04
_RESOLVE_BENEATH: Final = 0x08
_OPENAT2: Final = {"x86_64": 437, "aarch64": 437}.get(platform.machine())
_STEP: Final = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC


@final
class _OpenHow(ctypes.Structure):
    _fields_ = (
        ("flags", ctypes.c_uint64),
        ("mode", ctypes.c_uint64),
        ("resolve", ctypes.c_uint64),
    )


@final
class _Kernel:
    """The `openat2` system call, until the kernel says it does not have it (ENOSYS)."""

    __slots__ = ("available", "libc")

    def __init__(self) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.available = _OPENAT2 is not None

    def openat2(
        self, directory: int, relative: str, flags: int, mode: int, no_symlinks: bool
    ) -> int | None:
        """The new descriptor; None when the walk must do it (ENOSYS, or a rename race)."""
        resolve = _RESOLVE_BENEATH | _RESOLVE_NO_MAGICLINKS
        resolve |= _RESOLVE_NO_SYMLINKS if no_symlinks else 0
        how = _OpenHow(flags | os.O_CLOEXEC, mode, resolve)
        number = ctypes.c_long(_OPENAT2 or 0)
        encoded = os.fsencode(relative)
        result: int = self.libc.syscall(
            number, ctypes.c_int(directory), ctypes.c_char_p(encoded), ctypes.byref(how),
            ctypes.c_size_t(ctypes.sizeof(how)),
        )  # fmt: skip
        if result >= 0:
            return result
        code = ctypes.get_errno()
        if code == errno.ENOSYS:
            self.available = False
            return None
        if code == errno.EAGAIN:  # the kernel saw a concurrent rename: resolve by hand
            return None
        raise OSError(code, os.strerror(code), relative)


_KERNEL: Final = _Kernel()


def open_beneath(
    directory: int,
    relative: str,
    flags: int,
    mode: int = 0,
    *,
    lookup: Lookup,
    no_symlinks: bool = False,
) -> int:
    """A descriptor for `relative` opened with `flags`, resolved beneath `directory`; with
    `no_symlinks`, any symlink on the way (the final name too) is ELOOP."""
    if lookup == "openat2" and _KERNEL.available:
        opened = _KERNEL.openat2(directory, relative, flags, mode, no_symlinks)
        if opened is not None:
            return opened
    return _walk(directory, relative, flags, mode, no_symlinks)


def _identity(status: os.stat_result) -> tuple[int, int]:
    return status.st_dev, status.st_ino


def _walk(directory: int, relative: str, flags: int, mode: int, no_symlinks: bool) -> int:
    current = os.open(".", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=directory)
    try:
        folders = [_identity(os.fstat(current))]  # where the walk is, the starting folder first
        pending = relative.split("/")[::-1]  # a stack: the next name is last
        followed = 0
        while pending:
            name = pending.pop()
            if name in ("", ".", ".."):
                if name == "..":
                    current = _leave(current, folders, relative)
                continue
            if not pending:
                final = _open_final(current, name, flags, mode)
                if isinstance(final, int):
                    return final
                target = final
            else:
                step = os.open(name, _STEP, dir_fd=current)
                status = os.fstat(step)
                if stat.S_ISDIR(status.st_mode):
                    os.close(current)
                    current = step
                    folders.append(_identity(status))
                    continue
                try:
                    if not stat.S_ISLNK(status.st_mode):
                        raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), relative)
                    target = os.readlink("", dir_fd=step)
                finally:
                    os.close(step)
            followed += 1
            if no_symlinks:
                raise OSError(errno.ELOOP, "a symlink where none was", relative)
            if followed > _MAX_SYMLINKS:
                raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), relative)
            if target.startswith("/"):
                raise OSError(errno.EXDEV, "an absolute symlink leads out", relative)
            pending.extend(target.split("/")[::-1])
        return os.open(".", flags | os.O_CLOEXEC, mode, dir_fd=current)
    finally:
        os.close(current)


def _leave(current: int, folders: list[tuple[int, int]], relative: str) -> int:
    """The parent of `current` (closed), which must be the folder the walk came from."""
    if len(folders) == 1:
        raise OSError(errno.EXDEV, "`..` leads out", relative)
    parent = os.open("..", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=current)
    folders.pop()
    if _identity(os.fstat(parent)) != folders[-1]:
        os.close(parent)
        raise OSError(errno.EXDEV, "a folder moved during the lookup", relative)
    os.close(current)
    return parent


def _open_final(current: int, name: str, flags: int, mode: int) -> int | str:
    """The final name opened with `flags`, or the target of the symlink it is."""
    refused: OSError | None = None
    if not flags & os.O_PATH:
        try:
            return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=current)
        except OSError as error:
            if error.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
            refused = error
    opened = os.open(name, _STEP, dir_fd=current)
    keep = False
    try:
        status = os.fstat(opened)
        if stat.S_ISLNK(status.st_mode):
            return os.readlink("", dir_fd=opened)
        if refused is not None:  # no symlink now: the open failed for another reason
            raise refused
        if flags & os.O_DIRECTORY and not stat.S_ISDIR(status.st_mode):
            raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), name)
        keep = True
        return opened
    finally:
        if not keep:
            os.close(opened)
