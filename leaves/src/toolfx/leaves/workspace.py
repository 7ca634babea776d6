"""A session's workspace: its root, state folder, leaf limits, permissions and what was read."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Final, final

from toolfx.core.runtime import AtomicCell, FileError, FileStat
from toolfx.core.tools import ErrorCode, OutputLimits, ToolFailure, ToolRunContext
from toolfx.leaves._text_files import file_failure
from toolfx.leaves.permissions import Permissions

__all__ = [
    "EXTERNAL_DIRECTORY",
    "MAX_PATH_BYTES",
    "MAX_PATH_NAMES",
    "ResolvedPath",
    "Workspace",
    "WorkspaceLimits",
    "is_inside",
    "path_limits",
]

MAX_PATH_BYTES: Final = 4096
"""The longest path argument accepted, in UTF-8 bytes."""

MAX_PATH_NAMES: Final = 256
"""The most names (components) a path argument may have."""

EXTERNAL_DIRECTORY = "external_directory"
"""The permission a path outside the workspace root asks for."""


def is_inside(path: str, folder: str) -> bool:
    """Whether the normalized absolute `path` is `folder` or below it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def path_limits(argument: str, path: str) -> ToolFailure | None:
    """An INVALID_ARGS failure naming `argument` when `path` is over a limit, has a NUL or is
    not valid UTF-8 (a lone surrogate); None when it is fine. Linear in the path's length."""
    problem = None
    if "\0" in path:
        problem = f"contains a NUL character (at {path.index(chr(0))})"
    else:
        try:
            size = len(path.encode("utf-8"))
        except UnicodeEncodeError as error:
            problem = f"is not valid UTF-8 (a lone surrogate at {error.start})"
        else:
            names = sum(1 for name in path.split("/") if name)
            if size > MAX_PATH_BYTES:
                problem = f"is {size} bytes long; at most {MAX_PATH_BYTES} are allowed"
            elif names > MAX_PATH_NAMES:
                problem = f"has {names} names; at most {MAX_PATH_NAMES} are allowed"
    if problem is None:
        return None
    return ToolFailure.of(ErrorCode.INVALID_ARGS, f"{argument} {problem}")


@final
@dataclass(frozen=True, slots=True)
class WorkspaceLimits:
    """How much of a file, a search or a command's output a leaf shows: lines, bytes, and
    characters per line read. They also bound the work a leaf does to show it."""

    max_lines: int = 2000
    max_bytes: int = 50 * 1024
    max_line_chars: int = 2000
    max_saved_bytes: int = 64 << 20
    """The most bytes of one command's output saved for the model to read (the rest counted;
    the spill store's budget bounds all saves together)."""

    @property
    def shown(self) -> OutputLimits:
        """The limits of one text a leaf bounds itself (a command's output, cut and spilled)."""
        return OutputLimits(self.max_lines, self.max_bytes)

    @property
    def model(self) -> OutputLimits:
        """The pipeline's limits on a leaf's whole result: twice `shown`, room for what a leaf
        adds to what it bounded itself (line numbers, file headers, notes, an exit status)."""
        return OutputLimits(2 * self.max_lines, 2 * self.max_bytes)


@final
@dataclass(frozen=True, slots=True)
class ResolvedPath:
    """A path with every symlink resolved, its form relative to the root when inside, and the
    folder every file operation on it is confined to (`within=`)."""

    path: str
    """The resolved absolute path (ending in `/` when the argument named a folder that way)."""
    relative: str | None
    within: str
    """The workspace root for an inside path; the approved folder (or the state folder)."""

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
        limits: WorkspaceLimits | None = None,
    ) -> None:
        if not posixpath.isabs(root):
            raise ValueError(f"the workspace root must be an absolute path, not {root!r}")
        if state_dir is not None and not posixpath.isabs(state_dir):
            raise ValueError(f"the state folder must be an absolute path, not {state_dir!r}")
        self.root: str = posixpath.normpath(root)
        self.permissions: Permissions = Permissions() if permissions is None else permissions
        self.state_dir: str | None = None if state_dir is None else posixpath.normpath(state_dir)
        """The workspace's state folder (`toolfx.core.runtime.state_folder`): read without
        asking, writable by sandboxed commands; hosts keep the runtime's spills in its `outputs`."""
        self.limits: WorkspaceLimits = WorkspaceLimits() if limits is None else limits
        self._reads: AtomicCell[dict[str, _Stamp]] = AtomicCell({})

    def __repr__(self) -> str:
        return f"Workspace({self.root!r})"

    async def resolve(
        self, ctx: ToolRunContext, path: str, *, argument: str = "path", reading: bool = False
    ) -> ResolvedPath | ToolFailure:
        """Resolve `path` (relative to the root) through symlinks; outside the root, ask first.

        The limits come first (an INVALID_ARGS failure naming `argument`). A path inside the
        state folder needs no approval when `reading`. Returns the resolved path, or the
        failure to give the model; a refusal raises `PermissionDeclined`.
        """
        limited = path_limits(argument, path)
        if limited is not None:
            return limited
        files = ctx.runtime.files
        joined = path if posixpath.isabs(path) else posixpath.join(self.root, path)
        try:
            real, root = await files.resolve(joined), await files.resolve(self.root)
            state = None if self.state_dir is None else await files.resolve(self.state_dir)
        except FileError as error:
            return file_failure(error, path)
        trail = "/" if path.rpartition("/")[2] in ("", ".", "..") and real != "/" else ""
        if is_inside(real, root):
            relative = posixpath.relpath(real, root)
            if relative == ".":
                return ResolvedPath(real, relative, root)
            return ResolvedPath(real + trail, relative + trail, root)
        if reading and state is not None and is_inside(real, state):
            return ResolvedPath(real + trail, None, state)
        return await self._outside(ctx, path, real, trail)

    async def _outside(
        self, ctx: ToolRunContext, path: str, real: str, trail: str
    ) -> ResolvedPath | ToolFailure:
        """Ask `external_directory` for `real`; "always" remembers a file, or a folder and
        what is below it (never a parent's tree, never a sibling sharing its prefix)."""
        parent = posixpath.dirname(real)
        try:
            found = await ctx.runtime.files.stat(real, within=parent, resolved=True)
        except FileError:
            found = None
        is_folder = found is not None and found.kind == "directory"
        always = (real, posixpath.join(real, "*")) if is_folder else (real,)
        failure = await self.permissions.require(
            ctx,
            EXTERNAL_DIRECTORY,
            (real,),
            f"{path} resolves to {real}, outside the workspace {self.root}",
            always=always,
        )
        if failure is not None:
            return failure
        return ResolvedPath(real + trail, None, real if is_folder else parent)

    async def permit(
        self, ctx: ToolRunContext, permission: str, where: ResolvedPath
    ) -> ToolFailure | None:
        """Consult `permission` for `where` as shown (allowed unless a rule says otherwise)."""
        return await self.permissions.require(
            ctx, permission, (where.shown,), f"{permission} {where.shown}", default="allow"
        )

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
