"""Spill stores over a folder of this machine: each whole output a new 0600 file, never a link.

The folder is the one given (made 0700 when missing), else a private temporary folder made on
the first spill (`tempfile.mkdtemp`, 0700; left for the host to remove). The folder itself is
opened without following a final symlink, and each file is created in its handle with
O_EXCL | O_NOFOLLOW, named after the call (`<call id>.txt`, a random suffix when that is taken),
so a planted link or file is never written through or over. A failure (disk full, no permission)
removes the partial file and raises `SpillError` saying why.
"""

from __future__ import annotations

import os
import re
import secrets
import tempfile
import threading
from collections.abc import Callable
from typing import Final, TypeVar, final

import anyio.to_thread

from toolfx.core.runtime import SpillError, SpillLocation, SpillStore

__all__ = ["AnyioFolderSpills", "FolderSpills"]

T = TypeVar("T")

_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.-]")
_ATTEMPTS: Final = 8
_FOLDER_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS: Final = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@final
class _Folder:
    """The blocking work: where the folder is, and writing one spill into it."""

    __slots__ = ("_folder", "_lock")

    def __init__(self, folder: str | None) -> None:
        if folder is not None and not os.path.isabs(folder):
            raise ValueError(f"the spill folder must be an absolute path, not {folder!r}")
        self._folder = None if folder is None else os.path.normpath(folder)
        self._lock = threading.Lock()

    def where(self) -> str:
        """The folder (made on first use: the one given, else a private temporary one)."""
        with self._lock:
            if self._folder is None:
                self._folder = tempfile.mkdtemp(prefix="toolfx-spills-")
            else:
                os.makedirs(self._folder, 0o700, exist_ok=True)
            return self._folder

    def keep(self, call_id: str, text: str) -> SpillLocation:
        data = text.encode("utf-8", "surrogatepass")
        folder = self._folder or "a temporary folder"
        try:
            folder = self.where()
            handle = os.open(folder, _FOLDER_FLAGS)
            try:
                name = _write_new(handle, _UNSAFE.sub("_", call_id)[:80] or "output", data)
            finally:
                os.close(handle)
        except OSError as error:
            why = error.strerror or str(error)
            raise SpillError(f"could not save the whole output in {folder}: {why}") from error
        return SpillLocation(os.path.join(folder, name))


def _write_new(folder: int, base: str, data: bytes) -> str:
    """Write `data` to a new file in the folder handle; its name."""
    for attempt in range(_ATTEMPTS):
        name = f"{base}.txt" if attempt == 0 else f"{base}-{secrets.token_hex(4)}.txt"
        try:
            descriptor = os.open(name, _FILE_FLAGS, 0o600, dir_fd=folder)
        except FileExistsError:
            continue
        try:
            with os.fdopen(descriptor, "wb", closefd=True) as file:
                file.write(data)
        except OSError:
            os.unlink(name, dir_fd=folder)
            raise
        return name
    raise FileExistsError(f"no free name for {base}.txt after {_ATTEMPTS} attempts")


class _FolderSpills(SpillStore):
    """Spills in a folder, the blocking work run as `_run` says."""

    __slots__ = ("_folder",)

    def __init__(self, folder: str | None = None) -> None:
        self._folder = _Folder(folder)

    async def _run(self, operation: Callable[[], T]) -> T:
        raise NotImplementedError

    async def keep(self, call_id: str, tool: str, text: str) -> SpillLocation:
        """Write `text` to a new file in the folder; its path, or `SpillError`."""
        return await self._run(lambda: self._folder.keep(call_id, text))


@final
class FolderSpills(_FolderSpills):
    """Spills in a folder (None: a private temporary one), written inline (sync interpreter)."""

    __slots__ = ()

    async def _run(self, operation: Callable[[], T]) -> T:
        return operation()


@final
class AnyioFolderSpills(_FolderSpills):
    """Spills in a folder (None: a private temporary one), written in a worker thread."""

    __slots__ = ()

    async def _run(self, operation: Callable[[], T]) -> T:
        return await anyio.to_thread.run_sync(operation)
