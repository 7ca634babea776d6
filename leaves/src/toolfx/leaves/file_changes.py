"""What the file leaves share: the file as it is now (`read`, `write`, `edit`), and committing a
checked change in order: ask `edit`, make sure the file is still as loaded, write, remember it as
read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import final

from toolfx.core import (
    FileError,
    FileErrorKind,
    FileStat,
    FileSystem,
    ToolFailure,
    ToolRunContext,
)
from toolfx.leaves.text_files import decode_text, file_failure
from toolfx.leaves.workspace import ResolvedPath, Workspace

__all__ = ["EDIT", "TextFile", "commit", "current_text"]

EDIT = "edit"
"""The permission every file mutation asks for, with the path as its pattern."""


@final
@dataclass(frozen=True, slots=True)
class TextFile:
    """A text file as loaded: what it was (its stat) and its text."""

    stat: FileStat
    text: str


async def current_text(
    ctx: ToolRunContext, where: ResolvedPath, *, binary: str = "only text files can be changed"
) -> TextFile | ToolFailure | None:
    """The file at `where` as text, None when nothing is there, or why it cannot be used;
    `binary` ends the failure for a binary file."""
    files = ctx.runtime.files
    try:
        stat = await _stat_or_none(files, where.path)
        if stat is None:
            return None
        if stat.kind != "file":
            return ToolFailure(f"{where.shown} is a {stat.kind}, not a file")
        data = await files.read_bytes(where.path)
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
    loaded. The written file counts as read, so an edit may follow.
    """
    corrected = await workspace.permissions.require(
        ctx, EDIT, (where.shown,), f"{verb} {where.shown}"
    )
    if corrected is not None:
        return corrected
    files = ctx.runtime.files
    try:
        if await _stat_or_none(files, where.path) != (None if loaded is None else loaded.stat):
            return ToolFailure(
                f"{where.shown} changed on disk while the {verb} waited; nothing was written. "
                "Read it again, then retry."
            )
        await files.write_bytes(where.path, text.encode("utf-8"))
        stat = await files.stat(where.path)
    except FileError as error:
        return file_failure(error, where.shown)
    workspace.note_read(stat)
    return stat


async def _stat_or_none(files: FileSystem, path: str) -> FileStat | None:
    try:
        return await files.stat(path)
    except FileError as error:
        if error.kind is FileErrorKind.NOT_FOUND:
            return None
        raise
