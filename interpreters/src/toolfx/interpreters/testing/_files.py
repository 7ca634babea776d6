"""The deterministic runtime's file system: each operation a reschedule point, traced."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar, final

from toolfx.core.runtime import FileError, FileStat, FileSystem
from toolfx.interpreters.testing._scheduler import Scheduler
from toolfx.interpreters.testing._traps import Checkpoint

__all__ = ["TracedFileSystem"]

T = TypeVar("T")


@final
class TracedFileSystem(FileSystem):
    """Wraps a file system: a checkpoint before each operation, a `files` trace event after."""

    __slots__ = ("_files", "_scheduler")

    def __init__(self, files: FileSystem, scheduler: Scheduler) -> None:
        self._files = files
        self._scheduler = scheduler

    async def stat(
        self, path: str, *, within: str, follow_symlinks: bool = True, resolved: bool = False
    ) -> FileStat:
        """The wrapped `stat` (`lstat` in the trace when not following symlinks), traced."""
        return await self._traced(
            f"{'stat' if follow_symlinks else 'lstat'} {path}",
            lambda: self._files.stat(
                path, within=within, follow_symlinks=follow_symlinks, resolved=resolved
            ),
        )

    async def resolve(self, path: str) -> str:
        """The wrapped `resolve`, traced."""
        return await self._traced(f"resolve {path}", lambda: self._files.resolve(path))

    async def read_bytes(
        self,
        path: str,
        *,
        within: str,
        offset: int = 0,
        limit: int | None = None,
        resolved: bool = False,
    ) -> bytes:
        """The wrapped `read_bytes`, traced with the offset and limit when given."""
        window = "".join(
            (f" (offset {offset})" if offset else "", "" if limit is None else f" (limit {limit})")
        )
        return await self._traced(
            f"read {path}{window}",
            lambda: self._files.read_bytes(
                path, within=within, offset=offset, limit=limit, resolved=resolved
            ),
        )

    async def write_bytes(
        self, path: str, data: bytes, *, within: str, resolved: bool = False
    ) -> None:
        """The wrapped `write_bytes`, traced with the size written."""
        what = f"write {path} ({len(data)} bytes)"
        await self._traced(
            what, lambda: self._files.write_bytes(path, data, within=within, resolved=resolved)
        )

    async def list_dir(
        self, path: str, *, within: str, resolved: bool = False
    ) -> tuple[FileStat, ...]:
        """The wrapped `list_dir`, traced."""
        return await self._traced(
            f"list {path}", lambda: self._files.list_dir(path, within=within, resolved=resolved)
        )

    async def _traced(self, what: str, operation: Callable[[], Awaitable[T]]) -> T:
        await Checkpoint()
        try:
            result = await operation()
        except FileError as error:
            self._scheduler.record("files", f"{what}: {error.kind}")
            raise
        self._scheduler.record("files", what)
        return result
