"""What the search leaves share: the files below a search root, newest first, and cancellation.

The walk skips `.git`, never enters a symlinked folder, and keeps a symlinked file only when it
leads to a file below the folder the search is confined to (the workspace root, or the approved
folder): every listing and stat goes through the file system `within` that folder, so a folder
swapped for a symlink meanwhile is refused, never followed out. Names that are not UTF-8 are
left out. A folder that cannot be listed is skipped; only the search root's own errors are
reported. A file whose own path a rule does not allow for one of the search's permissions
(grep: `grep` and `read`; glob: `glob`) is withheld and counted, so searching a folder never
shows what a rule keeps from its files.
"""

from __future__ import annotations

import functools
import posixpath
from dataclasses import dataclass
from typing import Final, final

from toolfx.core.runtime import CALLER_CANCELLED, Cancelled, FileError, FileStat
from toolfx.core.tools import ToolFailure, ToolRunContext
from toolfx.leaves._globs import GlobMatcher
from toolfx.leaves._rules import decide
from toolfx.leaves._text_files import file_failure
from toolfx.leaves.workspace import ResolvedPath, Workspace, is_inside

__all__ = [
    "CHECKPOINT_EVERY",
    "MATCH_SLICE",
    "SKIPPED_FOLDERS",
    "Found",
    "FoundFile",
    "SearchLimits",
    "files_matching",
    "files_to_search",
    "keep_going",
    "search_title",
]

SKIPPED_FOLDERS: Final = frozenset({".git"})
"""Folder names a search never enters."""

CHECKPOINT_EVERY: Final = 32
"""How many folders or files a search goes through between two checkpoints."""

MATCH_SLICE: Final = 1000
"""How many paths a glob matches off the event loop between two looks at the signal."""


@final
@dataclass(frozen=True, slots=True)
class FoundFile:
    """A file found: its path, how to show it, its path below the search root, size, mtime,
    and the folder reading it is confined to."""

    path: str
    shown: str
    relative: str
    size: int
    mtime_ns: int
    within: str


@final
@dataclass(frozen=True, slots=True)
class SearchLimits:
    """How much work one glob or grep may do before it stops and says so."""

    max_entries: int = 100_000
    """Folder entries a walk looks at."""
    max_search_bytes: int = 64 * 1024 * 1024
    """Bytes of files grep searches in all."""
    max_counted_matches: int = 100_000
    """Matching lines grep counts (it shows far fewer)."""


@final
@dataclass(frozen=True, slots=True)
class Found:
    """The files found, newest first, why the walk stopped early (None: it did not), and how
    many files the rules withheld."""

    files: tuple[FoundFile, ...]
    stopped_early: str | None = None
    withheld: int = 0


async def keep_going(ctx: ToolRunContext, step: int) -> None:
    """Raise `Cancelled` once the call's signal is set; a checkpoint every so many steps."""
    if ctx.signal.is_cancelled():
        raise Cancelled(ctx.signal.reason or CALLER_CANCELLED)
    if step % CHECKPOINT_EVERY == 0:
        await ctx.runtime.checkpoint()


async def files_to_search(
    ctx: ToolRunContext,
    workspace: Workspace,
    path: str,
    permissions: tuple[str, ...],
    max_entries: int,
) -> Found | ToolFailure:
    """The files at or below `path` (outside the workspace: asked first), newest first, once
    the first of `permissions` (allowed unless a rule says otherwise) is granted for `path`;
    a file the rules do not allow for every one of `permissions` is withheld.

    The walk looks at no more than `max_entries` folder entries; past them it stops and says so.
    """
    permission = permissions[0]
    where = await workspace.resolve(ctx, path, reading=True)
    if isinstance(where, ToolFailure):
        return where
    refused = await workspace.permit(ctx, permission, where)
    if refused is not None:
        return refused
    try:
        top = await ctx.runtime.files.stat(where.path, within=where.within, resolved=True)
    except FileError as error:
        return file_failure(error, where.shown)
    if top.kind == "file":
        name = posixpath.basename(where.path)
        found = [FoundFile(where.path, where.shown, name, top.size, top.mtime_ns, where.within)]
        stopped = None
    elif top.kind == "directory":
        found, stopped = await _walk(ctx, where, max_entries)
    else:
        return ToolFailure(f"{where.shown} is neither a file nor a folder")
    allowed = [file for file in found if _allowed(workspace, permissions, where, file)]
    ordered = tuple(sorted(allowed, key=lambda file: (-file.mtime_ns, file.shown)))
    return Found(ordered, stopped, len(found) - len(allowed))


def _allowed(
    workspace: Workspace, permissions: tuple[str, ...], top: ResolvedPath, file: FoundFile
) -> bool:
    """Whether the rules allow every one of `permissions` for the file's own resolved path
    (relative to the workspace root inside it, absolute outside)."""
    own = file.path if top.relative is None else posixpath.relpath(file.path, top.within)
    rules = workspace.permissions.rules
    return all(decide(rules, name, (own,), "allow") == "allow" for name in permissions)


async def _walk(
    ctx: ToolRunContext, top: ResolvedPath, max_entries: int
) -> tuple[list[FoundFile], str | None]:
    files = ctx.runtime.files
    found: list[FoundFile] = []
    pending = [""]  # folders below the top, relative to it
    visited = seen = 0
    stopped: str | None = None
    while pending and stopped is None:
        visited += 1
        await keep_going(ctx, visited)
        folder = pending.pop()
        try:
            entries = await files.list_dir(
                posixpath.join(top.path, folder), within=top.within, resolved=True
            )
        except FileError:
            continue
        if seen + len(entries) > max_entries:
            entries = entries[: max_entries - seen]
            stopped = f"looked at {max_entries} folder entries, the most one search may"
        seen += len(entries)
        for entry in entries:
            name = posixpath.basename(entry.path)
            if not _is_utf8(name):
                continue
            relative = posixpath.join(folder, name) if folder else name
            if entry.kind == "directory":
                if stopped is None and name not in SKIPPED_FOLDERS:
                    pending.append(relative)
                continue
            stat = entry if entry.kind == "file" else await _linked_file(ctx, entry, top.within)
            if stat is not None:
                shown = _shown(top, relative)
                found.append(
                    FoundFile(stat.path, shown, relative, stat.size, stat.mtime_ns, top.within)
                )
    return found, stopped


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


async def _linked_file(ctx: ToolRunContext, entry: FileStat, within: str) -> FileStat | None:
    """The stat of the file a symlink leads to (by its resolved path), if it is below `within`;
    the stat goes through `within`, so a link swapped meanwhile is refused, not followed."""
    if entry.kind != "symlink":
        return None
    files = ctx.runtime.files
    try:
        real = await files.resolve(entry.path)
        if not is_inside(real, within):
            return None
        stat = await files.stat(real, within=within, resolved=True)
    except FileError:
        return None
    return stat if stat.kind == "file" else None


async def files_matching(
    ctx: ToolRunContext, matcher: GlobMatcher, files: tuple[FoundFile, ...], *, on_path: bool
) -> tuple[FoundFile, ...]:
    """The files whose path below the search root (or, not `on_path`, whose name) `matcher`
    matches, in order; matched off the event loop `MATCH_SLICE` paths at a time."""
    kept: list[FoundFile] = []
    for step, start in enumerate(range(0, len(files), MATCH_SLICE), start=1):
        await keep_going(ctx, step)
        part = files[start : start + MATCH_SLICE]
        kept.extend(
            await ctx.runtime.run_blocking(functools.partial(_matching, matcher, part, on_path))
        )
    return tuple(kept)


def _matching(matcher: GlobMatcher, files: tuple[FoundFile, ...], on_path: bool) -> list[FoundFile]:
    return [
        file
        for file in files
        if matcher.matches(file.relative if on_path else posixpath.basename(file.path))
    ]


def _shown(top: ResolvedPath, relative: str) -> str:
    if top.relative is None:
        return posixpath.join(top.path, relative)
    return posixpath.normpath(posixpath.join(top.relative, relative))


def search_title(verb: str, subject: str, path: str | None) -> str:
    """A search card's title: what was searched for, and where when not the workspace root."""
    return f"{verb} {subject}" + ("" if path is None else f" in {path}")
