"""What the search leaves share: the files below a search root, newest first, and cancellation.

The walk skips `.git`, `.toolfx` and the workspace's state folder, never enters a symlinked
folder, and keeps a symlinked file only when it resolves to a file inside the workspace or the
search root (so a search cannot read outside what was allowed). A folder that cannot be listed
is skipped; only the search root's own errors are reported.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Final, final

from toolfx.core import Cancelled, FileError, FileStat, ToolFailure, ToolRunContext
from toolfx.core.cancel import CALLER_CANCELLED
from toolfx.leaves.text_files import file_failure
from toolfx.leaves.workspace import ResolvedPath, Workspace, is_inside

__all__ = [
    "CHECKPOINT_EVERY",
    "SKIPPED_FOLDERS",
    "FoundFile",
    "files_to_search",
    "keep_going",
    "search_title",
]

SKIPPED_FOLDERS: Final = frozenset({".git", ".toolfx"})
"""Folder names a search never enters (besides the workspace's state folder)."""

CHECKPOINT_EVERY: Final = 32
"""How many folders or files a search goes through between two checkpoints."""


@final
@dataclass(frozen=True, slots=True)
class FoundFile:
    """A file found: its path, how to show it, its path below the search root, size and mtime."""

    path: str
    shown: str
    relative: str
    size: int
    mtime_ns: int


async def keep_going(ctx: ToolRunContext, step: int) -> None:
    """Raise `Cancelled` once the call's signal is set; a checkpoint every so many steps."""
    if ctx.signal.is_cancelled():
        raise Cancelled(ctx.signal.reason or CALLER_CANCELLED)
    if step % CHECKPOINT_EVERY == 0:
        await ctx.runtime.checkpoint()


async def files_to_search(
    ctx: ToolRunContext, workspace: Workspace, path: str
) -> tuple[FoundFile, ...] | ToolFailure:
    """The files at or below `path` (outside the workspace: asked first), newest first."""
    where = await workspace.resolve(ctx, path)
    if isinstance(where, ToolFailure):
        return where
    try:
        top = await ctx.runtime.files.stat(where.path)
    except FileError as error:
        return file_failure(error, where.shown)
    if top.kind == "file":
        name = posixpath.basename(where.path)
        return (FoundFile(where.path, where.shown, name, top.size, top.mtime_ns),)
    if top.kind != "directory":
        return ToolFailure(f"{where.shown} is neither a file nor a folder")
    found = await _walk(ctx, workspace, where)
    return tuple(sorted(found, key=lambda file: (-file.mtime_ns, file.shown)))


async def _walk(ctx: ToolRunContext, workspace: Workspace, top: ResolvedPath) -> list[FoundFile]:
    files = ctx.runtime.files
    state_dir = await files.resolve(workspace.state_dir)
    inside = (await files.resolve(workspace.root), top.path)
    found: list[FoundFile] = []
    pending = [""]  # folders below the top, relative to it
    visited = 0
    while pending:
        visited += 1
        await keep_going(ctx, visited)
        folder = pending.pop()
        try:
            entries = await files.list_dir(posixpath.join(top.path, folder))
        except FileError:
            continue
        for entry in entries:
            name = posixpath.basename(entry.path)
            relative = posixpath.join(folder, name) if folder else name
            if entry.kind == "directory":
                if name not in SKIPPED_FOLDERS and entry.path != state_dir:
                    pending.append(relative)
                continue
            stat = entry if entry.kind == "file" else await _linked_file(ctx, entry, inside)
            if stat is not None:
                shown = _shown(top, relative)
                found.append(FoundFile(entry.path, shown, relative, stat.size, stat.mtime_ns))
    return found


async def _linked_file(
    ctx: ToolRunContext, entry: FileStat, inside: tuple[str, ...]
) -> FileStat | None:
    """The stat of the file a symlink resolves to, if it is a file inside one of `inside`."""
    if entry.kind != "symlink":
        return None
    files = ctx.runtime.files
    try:
        real = await files.resolve(entry.path)
        if not any(is_inside(real, root) for root in inside):
            return None
        stat = await files.stat(real)
    except FileError:
        return None
    return stat if stat.kind == "file" else None


def _shown(top: ResolvedPath, relative: str) -> str:
    if top.relative is None:
        return posixpath.join(top.path, relative)
    return posixpath.normpath(posixpath.join(top.relative, relative))


def search_title(verb: str, subject: str, path: str | None) -> str:
    """A search card's title: what was searched for, and where when not the workspace root."""
    return f"{verb} {subject}" + ("" if path is None else f" in {path}")
