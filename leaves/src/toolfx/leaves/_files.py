"""What the file leaves share: the file as it is now (`read`, `write`, `edit`), and committing a
checked change in order: ask `edit`, make sure the file is still as loaded, write, remember it as
read."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import final

from toolfx.core.json import plural
from toolfx.core.plaintext import count_lines, head, unified_text_diff
from toolfx.core.runtime import FileError, FileErrorKind, FileStat, FileSystem
from toolfx.core.tools import ErrorCode, ToolFailure, ToolRunContext
from toolfx.leaves._diffs import ChangedLines
from toolfx.leaves._text_files import decode_text, file_failure
from toolfx.leaves.workspace import ResolvedPath, Workspace, WorkspaceLimits

__all__ = [
    "EDIT",
    "MAX_CHANGED_FILE_BYTES",
    "TextFile",
    "bounded_change",
    "bounded_diff",
    "commit",
    "current_text",
    "file_target",
]

MAX_CHANGED_FILE_BYTES = 64 * 1024 * 1024
"""The largest existing file `write` or `edit` loads (a larger one, or one growing past it
while read, is refused: its old content is never read whole)."""

EDIT = "edit"
"""The permission every file mutation asks for, with the path as its pattern."""


@final
@dataclass(frozen=True, slots=True)
class TextFile:
    """A text file as loaded: what it was (its stat) and its text."""

    stat: FileStat
    text: str


def file_target(where: ResolvedPath, path: str) -> ToolFailure | None:
    """An INVALID_ARGS failure when `path` (resolved to `where`) can only name a folder."""
    if not where.path.endswith("/") and where.relative != ".":
        return None
    return ToolFailure.of(
        ErrorCode.INVALID_ARGS,
        f"path {path} names a folder (it ends in `/`, `.` or `..`); give a file's path",
    )


def bounded_change(change: ChangedLines, limits: WorkspaceLimits) -> ChangedLines:
    """`change` with each side cut to the output limits (a card never carries a whole file)."""

    def cut(text: str) -> str:
        shown = head(text, limits.max_lines, limits.max_bytes)
        if shown is text:
            return text
        return _noted(
            shown, f"[cut at {count_lines(shown)} of {plural(count_lines(text), 'line')}]"
        )

    return ChangedLines(
        None if change.before is None else cut(change.before),
        cut(change.after),
        change.start_line,
    )


def bounded_diff(diff: str, limits: WorkspaceLimits, hint: str = "") -> str:
    """`diff` cut to the output limits, saying so (and `hint`, e.g. what to do instead) when cut."""
    shown = head(diff, limits.max_lines, limits.max_bytes)
    if shown is diff:
        return diff
    total = plural(count_lines(diff), "line")
    return _noted(shown, f"[diff cut at {count_lines(shown)} of {total}{hint}]")


def _noted(shown: str, note: str) -> str:
    """A cut text and the note saying where it was cut, on a line of its own."""
    joint = "" if not shown or shown.endswith("\n") else "\n"
    return f"{shown}{joint}{note}\n"


async def current_text(
    ctx: ToolRunContext, where: ResolvedPath, *, binary: str = "only text files can be changed"
) -> TextFile | ToolFailure | None:
    """The file at `where` as text, None when nothing is there, or why it cannot be used;
    `binary` ends the failure for a binary file."""
    files = ctx.runtime.files
    try:
        stat = await _stat_or_none(files, where)
        if stat is None:
            return None
        if stat.kind != "file":
            return ToolFailure(f"{where.shown} is a {stat.kind}, not a file")
        too_large = ToolFailure(
            f"{where.shown} is over {MAX_CHANGED_FILE_BYTES // 2**20} MB; "
            "write and edit change smaller files only"
        )
        if stat.size > MAX_CHANGED_FILE_BYTES:
            return too_large
        limit = MAX_CHANGED_FILE_BYTES + 1  # a file growing meanwhile is read no further
        data = await files.read_bytes(where.path, within=where.within, limit=limit, resolved=True)
        if len(data) > MAX_CHANGED_FILE_BYTES:
            return too_large
    except FileError as error:
        return file_failure(error, where.shown)
    text = decode_text(data)
    if text is None:
        return ToolFailure(f"{where.shown} is a binary file; {binary}")
    return TextFile(stat, text)


async def commit(
    ctx: ToolRunContext,
    workspace: Workspace,
    where: ResolvedPath,
    loaded: TextFile | None,
    text: str,
    *,
    verb: str,
) -> FileStat | ToolFailure:
    """Write `text` over the file `loaded` (None: a new file) once `edit` is granted.

    Nothing is written when the user corrects the call or the file changed on disk since it was
    loaded. The written file counts as read, so an edit may follow. When the user is asked, the
    ask's preview is the change as a unified diff with the file's line numbers (bounded).
    """

    async def preview() -> str:
        before = "" if loaded is None else loaded.text
        diffing = functools.partial(unified_text_diff, where.shown, before, text)
        return bounded_diff(await ctx.runtime.run_blocking(diffing), workspace.limits)

    corrected = await workspace.permissions.require(
        ctx, EDIT, (where.shown,), f"{verb} {where.shown}", preview=preview
    )
    if corrected is not None:
        return corrected
    files = ctx.runtime.files
    try:
        if await _stat_or_none(files, where) != (None if loaded is None else loaded.stat):
            return ToolFailure(
                f"{where.shown} changed on disk while the {verb} waited; nothing was written. "
                "Read it again, then retry."
            )
        await files.write_bytes(
            where.path, text.encode("utf-8"), within=where.within, resolved=True
        )
        stat = await files.stat(where.path, within=where.within, resolved=True)
    except FileError as error:
        return file_failure(error, where.shown)
    workspace.note_read(stat)
    return stat


async def _stat_or_none(files: FileSystem, where: ResolvedPath) -> FileStat | None:
    try:
        return await files.stat(where.path, within=where.within, resolved=True)
    except FileError as error:
        if error.kind is FileErrorKind.NOT_FOUND:
            return None
        raise
