"""A session's workspace: its root, state folder, output limits, permissions and what was read."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import final

from toolfx.core import FileStat, ToolFailure, ToolRunContext
from toolfx.core.cell import AtomicCell
from toolfx.leaves.permissions import Permissions

__all__ = ["EXTERNAL_DIRECTORY", "OutputLimits", "ResolvedPath", "Workspace", "is_inside"]

EXTERNAL_DIRECTORY = "external_directory"
"""The permission a path outside the workspace root asks for."""


def is_inside(path: str, folder: str) -> bool:
    """Whether the normalized absolute `path` is `folder` or below it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


@final
@dataclass(frozen=True, slots=True)
class OutputLimits:
    """How much of a result the model sees: lines, bytes, and characters per line read."""

    max_lines: int = 2000
    max_bytes: int = 50 * 1024
    max_line_chars: int = 2000


@final
@dataclass(frozen=True, slots=True)
class ResolvedPath:
    """A path with every symlink resolved, and its form relative to the root when inside."""

    path: str
    relative: str | None

    @property
    def shown(self) -> str:
        """How to show the path: relative inside the workspace, absolute outside."""
        return self.path if self.relative is None else self.relative


@final
@dataclass(frozen=True, slots=True)
class _Stamp:
    size: int
    mtime_ns: int


@final
class Workspace:
    """Where leaves work: paths resolve inside `root`; anything outside asks first."""

    __slots__ = ("_reads", "limits", "permissions", "root", "state_dir")

    def __init__(
        self,
        root: str,
        permissions: Permissions | None = None,
        *,
        state_dir: str | None = None,
        limits: OutputLimits | None = None,
    ) -> None:
        if not posixpath.isabs(root):
            raise ValueError(f"the workspace root must be an absolute path, not {root!r}")
        self.root = posixpath.normpath(root)
        self.permissions = Permissions() if permissions is None else permissions
        self.state_dir = posixpath.join(self.root, ".toolfx") if state_dir is None else state_dir
        self.limits = OutputLimits() if limits is None else limits
        self._reads: AtomicCell[dict[str, _Stamp]] = AtomicCell({})

    def __repr__(self) -> str:
        return f"Workspace({self.root!r})"

    async def resolve(self, ctx: ToolRunContext, path: str) -> ResolvedPath | ToolFailure:
        """Resolve `path` (relative to the root) through symlinks; outside the root, ask first.

        Returns the resolved path, or the user's corrected failure; a refusal raises
        `PermissionDeclined` (see `Permissions.require`).
        """
        files = ctx.runtime.files
        joined = path if posixpath.isabs(path) else posixpath.join(self.root, path)
        real, root = await files.resolve(joined), await files.resolve(self.root)
        if is_inside(real, root):
            return ResolvedPath(real, posixpath.relpath(real, root))
        folder = posixpath.join(posixpath.dirname(real), "*")
        failure = await self.permissions.require(
            ctx,
            EXTERNAL_DIRECTORY,
            (real,),
            f"{path} resolves to {real}, outside the workspace {self.root}",
            always=(folder,),
        )
        return ResolvedPath(real, None) if failure is None else failure

    def note_read(self, stat: FileStat) -> None:
        """Remember the file as this session last saw it (read, written or edited)."""
        stamp = _Stamp(stat.size, stat.mtime_ns)
        self._reads.update(lambda reads: ({**reads, stat.path: stamp}, None))

    def changed_since_read(self, stat: FileStat) -> str | None:
        """Why the file may not be edited without reading it first, or None if it is as read."""
        stamp = self._reads.get().get(stat.path)
        if stamp is None:
            return "it has not been read in this session; read it first"
        if stamp != _Stamp(stat.size, stat.mtime_ns):
            return "it changed on disk since it was last read; read it again first"
        return None
