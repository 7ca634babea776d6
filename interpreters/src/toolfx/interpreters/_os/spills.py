"""Spill stores over a folder of this machine: each whole output a new 0600 file, never a link.

The folder is the one given (made 0700 when missing), else a private temporary folder made on
the first spill (`tempfile.mkdtemp`, 0700; left for the host to remove). The folder itself is
opened without following a final symlink, and each file is created in its handle with
O_EXCL | O_NOFOLLOW, named after the call (`<call id>.txt`, a random suffix when that is taken),
so a planted link or file is never written through or over. A failure (disk full, no permission)
removes the partial file and raises `SpillError` saying why. A spill opened with `open` is
written as its output comes, its bytes exactly as given. All the spills of one store together
save at most its budget of bytes (`SPILL_BUDGET` unless given): past it a write saves what is
left and says how much, and `keep` and `open` refuse.
"""

from __future__ import annotations

import os
import re
import secrets
import tempfile
import threading
from collections.abc import Callable
from typing import Final, Protocol, TypeVar, final

import anyio.to_thread

from toolfx.core.runtime import (
    SPILL_BUDGET,
    SpillBudget,
    SpillError,
    SpillLocation,
    SpillStore,
    SpillWriter,
)

__all__ = ["AnyioFolderSpills", "FolderSpills"]

T = TypeVar("T")

_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.-]")
_ATTEMPTS: Final = 8
_FOLDER_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS: Final = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class _Runs(Protocol):
    """Runs a blocking operation as the store does: inline, or in a worker thread."""

    async def __call__(self, operation: Callable[[], T], /) -> T: ...


@final
class _OpenFile:
    """A new spill file being written: its folder's handle, its name and its descriptor."""

    __slots__ = ("_descriptor", "_folder", "_grant", "_name", "path")

    def __init__(
        self, folder: int, name: str, descriptor: int, path: str, grant: Callable[[int], int]
    ) -> None:
        self._folder, self._name, self._descriptor = folder, name, descriptor
        self.path = path
        self._grant = grant

    def write(self, data: bytes) -> int:
        """Append what of `data` the budget grants; how many bytes. On failure remove the file,
        close, and raise `SpillError`."""
        if self._descriptor < 0:
            raise SpillError(f"the spill {self.path} is closed")
        granted = self._grant(len(data))
        self.append(data[:granted])
        return granted

    def append(self, data: bytes) -> None:
        """Append all of `data` (its bytes already taken from the budget); on failure remove the
        file, close, and raise `SpillError`."""
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._descriptor, view) :]
        except OSError as error:
            os.unlink(self._name, dir_fd=self._folder)
            self.close()
            why = error.strerror or str(error)
            raise SpillError(f"could not save the whole output in {self.path}: {why}") from error

    def close(self) -> None:
        """Close the file and its folder's handle (once)."""
        if self._descriptor >= 0:
            os.close(self._descriptor)
            os.close(self._folder)
            self._descriptor = -1


@final
class _Folder:
    """The blocking work: where the folder is, and making one spill file in it."""

    __slots__ = ("_budget", "_folder", "_lock")

    def __init__(self, folder: str | None, budget: int) -> None:
        if folder is not None and not os.path.isabs(folder):
            raise ValueError(f"the spill folder must be an absolute path, not {folder!r}")
        self._folder = None if folder is None else os.path.normpath(folder)
        self._budget = SpillBudget(budget)
        self._lock = threading.Lock()

    def grant(self, size: int) -> int:
        """Up to `size` bytes of what is left of the budget (taken)."""
        with self._lock:
            return self._budget.grant(size)

    def _refuse(self, size: int) -> None:
        """Take `size` bytes of the budget, or raise `SpillError` saying it is spent."""
        with self._lock:
            refusal = self._budget.refusal(size)
        if refusal is not None:
            raise refusal

    def where(self) -> str:
        """The folder (made on first use: the one given, else a private temporary one)."""
        with self._lock:
            if self._folder is None:
                self._folder = tempfile.mkdtemp(prefix="toolfx-spills-")
            else:
                os.makedirs(self._folder, 0o700, exist_ok=True)
            return self._folder

    def open(self, call_id: str, size: int = 0) -> _OpenFile:
        """A new, empty file for `call_id`'s output (`size` bytes of the budget taken for it),
        or `SpillError`."""
        self._refuse(size)
        folder = self._folder or "a temporary folder"
        try:
            folder = self.where()
            handle = os.open(folder, _FOLDER_FLAGS)
            try:
                name, descriptor = _create_new(handle, _UNSAFE.sub("_", call_id)[:80] or "output")
            except BaseException:
                os.close(handle)
                raise
        except OSError as error:
            why = error.strerror or str(error)
            raise SpillError(f"could not save the whole output in {folder}: {why}") from error
        return _OpenFile(handle, name, descriptor, os.path.join(folder, name), self.grant)

    def keep(self, call_id: str, text: str) -> SpillLocation:
        """Write `text` (UTF-8) to a new file for `call_id`; where it is, or `SpillError`."""
        data = text.encode("utf-8", "surrogatepass")
        opened = self.open(call_id, len(data))
        try:
            opened.append(data)
        finally:
            opened.close()
        return SpillLocation(opened.path)


def _create_new(folder: int, base: str) -> tuple[str, int]:
    """A new file in the folder handle: its name and a descriptor open for writing."""
    for attempt in range(_ATTEMPTS):
        name = f"{base}.txt" if attempt == 0 else f"{base}-{secrets.token_hex(4)}.txt"
        try:
            return name, os.open(name, _FILE_FLAGS, 0o600, dir_fd=folder)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free name for {base}.txt after {_ATTEMPTS} attempts")


@final
class _FolderWriter(SpillWriter):
    """One spill file written as its output comes, each write run as the store runs them."""

    __slots__ = ("_file", "_run")

    def __init__(self, opened: _OpenFile, run: _Runs) -> None:
        self._file = opened
        self._run = run

    @property
    def location(self) -> SpillLocation:
        """The file's path."""
        return SpillLocation(self._file.path)

    async def write(self, data: bytes) -> int:
        """Append what of `data` the budget grants to the file; how many bytes. `SpillError`
        (the file removed) if it cannot."""
        opened = self._file
        return await self._run(lambda: opened.write(data))

    async def close(self) -> None:
        """Close the file (at once: closing does not wait on the disk)."""
        self._file.close()


class _FolderSpills(SpillStore):
    """Spills in a folder, the blocking work run as `_run` says."""

    __slots__ = ("_folder",)

    def __init__(self, folder: str | None = None, budget: int = SPILL_BUDGET) -> None:
        self._folder = _Folder(folder, budget)

    async def _run(self, operation: Callable[[], T]) -> T:
        raise NotImplementedError

    async def keep(self, call_id: str, tool: str, text: str) -> SpillLocation:
        """Write `text` to a new file in the folder; its path, or `SpillError`."""
        return await self._run(lambda: self._folder.keep(call_id, text))

    async def open(self, call_id: str, tool: str) -> SpillWriter:
        """A new, empty file in the folder, written as the output comes; or `SpillError`."""
        opened = await self._run(lambda: self._folder.open(call_id))
        return _FolderWriter(opened, self._run)


@final
class FolderSpills(_FolderSpills):
    """Spills in a folder (None: a private temporary one), written inline (sync interpreter);
    all of them together at most `budget` bytes."""

    __slots__ = ()

    async def _run(self, operation: Callable[[], T]) -> T:
        return operation()


@final
class AnyioFolderSpills(_FolderSpills):
    """Spills in a folder (None: a private temporary one), written in a worker thread; all of
    them together at most `budget` bytes."""

    __slots__ = ()

    async def _run(self, operation: Callable[[], T]) -> T:
        return await anyio.to_thread.run_sync(operation)
