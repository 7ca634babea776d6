"""The `read` leaf: a window of numbered lines from a text file, remembered for `edit`.

A window of numbered lines from a text file in (or, approved, outside) the workspace; long lines are
cut, binary files refused, and the read is remembered for `edit`.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Annotated, NotRequired, TypedDict

from returns.result import Failure, Result, Success

from toolfx.core.runtime import FileError
from toolfx.core.tools import (
    ErrorCode,
    FileLocation,
    GenericCallCard,
    ReadFileLine,
    ReadResultCard,
    TextBlock,
    ToolCallView,
    ToolDefinition,
    ToolFailure,
    ToolRunContext,
)
from toolfx.leaves._leaf import define_leaf
from toolfx.leaves._read_window import read_window
from toolfx.leaves._text_files import file_failure
from toolfx.leaves.workspace import Workspace

__all__ = ["ReadArgs", "ReadLine", "ReadOutput", "read_tool"]


class ReadArgs(TypedDict):
    """What to read: a path, and optionally where to start and how many lines."""

    path: Annotated[str, "The file: relative to the workspace root, or absolute"]
    offset: NotRequired[Annotated[int, "The first line to read, counting from 1 (default 1)"]]
    limit: NotRequired[Annotated[int, "How many lines to read at most (default 2000)"]]


@dataclass(frozen=True)
class ReadLine:
    """One numbered line as shown (cut when longer than the limit)."""

    number: int
    text: str


@dataclass(frozen=True)
class ReadOutput:
    """The window read: the path as shown, its lines, the file's line count and what follows."""

    path: str
    offset: int
    lines: tuple[ReadLine, ...]
    total_lines: int | None
    """None when the file goes on too far past the window to be counted."""
    next_offset: int | None


def read_tool(workspace: Workspace) -> ToolDefinition[ReadArgs, ReadOutput]:
    """The `read` tool over `workspace`."""

    async def read(args: ReadArgs, ctx: ToolRunContext) -> Result[ReadOutput, ToolFailure]:
        offset, limit = args.get("offset", 1), args.get("limit", workspace.limits.max_lines)
        if offset < 1 or limit < 1:
            return Failure(ToolFailure.of(ErrorCode.INVALID_ARGS, "offset and limit start at 1"))
        where = await workspace.resolve(ctx, args["path"], reading=True)
        if isinstance(where, ToolFailure):
            return Failure(where)
        refused = await workspace.permit(ctx, "read", where)
        if refused is not None:
            return Failure(refused)
        files = ctx.runtime.files
        try:
            stat = await files.stat(where.path, within=where.within, resolved=True)
            if stat.kind != "file":
                return Failure(ToolFailure(f"{where.shown} is a {stat.kind}, not a file"))
            window = await read_window(files, where, offset, limit, workspace.limits)
        except FileError as error:
            return Failure(file_failure(error, where.shown))
        if window is None:
            return Failure(ToolFailure(f"{where.shown} is a binary file; read refuses it"))
        workspace.note_read(stat)
        shown = tuple(ReadLine(number, text) for number, text in window.lines)
        next_offset = offset + len(shown) if window.more else None
        return Success(ReadOutput(where.shown, offset, shown, window.total_lines, next_offset))

    return define_leaf(
        name="read",
        description=(
            "Read a text file as numbered lines (at most 2000 lines or 50 KB per call; "
            "use offset and limit for more). Reading a file is required before editing it."
        ),
        parameters=ReadArgs,
        output=ReadOutput,
        render=_render,
        card=_card,
        execute=read,
        pending=_pending,
        parallel=True,
        limits=workspace.limits,
    )


def _render(args: ReadArgs, out: ReadOutput) -> tuple[TextBlock, ...]:
    body = "\n".join(f"{line.number:>6}\t{line.text}" for line in out.lines)
    count = "more lines" if out.total_lines is None else f"{out.total_lines} lines"
    if not out.lines:
        body = f"({out.path} has {count}; nothing at line {out.offset})"
    elif out.next_offset is not None:
        last = out.lines[-1].number
        body += (
            f"\n\n({out.path} has {count}; this shows {out.offset}-{last}. "
            f"Read on with offset={out.next_offset}.)"
        )
    return (TextBlock(body),)


def _card(args: ReadArgs, out: ReadOutput) -> ReadResultCard:
    return ReadResultCard(
        path=out.path,
        offset=out.offset,
        lines=tuple(ReadFileLine(line.number, line.text) for line in out.lines),
        total_lines=out.lines[-1].number if out.total_lines is None else out.total_lines,
        title=f"Read {out.path}",
        lang=_language(out.path),
    )


def _pending(args: ReadArgs) -> ToolCallView:
    return GenericCallCard(
        title=f"Read {args['path']}",
        kind="read",
        locations=(FileLocation(args["path"], args.get("offset")),),
    )


_LANGUAGES = {
    ".py": "python",
    ".md": "markdown",
    ".json": "json",
    ".toml": "toml",
    ".js": "javascript",
    ".ts": "typescript",
    ".sh": "bash",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".txt": "text",
}


def _language(path: str) -> str | None:
    return _LANGUAGES.get(posixpath.splitext(path)[1].lower())
