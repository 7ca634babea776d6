"""The `write` leaf: create a text file or replace its whole content, once `edit` is granted.

Create a text file or replace its whole content, in (or, approved, outside) the workspace, once
`edit` is granted for its path; the written file counts as read for `edit`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, TypedDict

from returns.result import Failure, Result, Success

from toolfx.core.json import plural
from toolfx.core.tools import (
    DiffResultCard,
    TextBlock,
    ToolCallView,
    ToolDefinition,
    ToolFailure,
    ToolRunContext,
)
from toolfx.leaves._diffs import ChangedLines, changed_lines, diff_result_card, pending_diff_card
from toolfx.leaves._files import bounded_change, commit, current_text, file_target
from toolfx.leaves._leaf import define_leaf
from toolfx.leaves.workspace import Workspace

__all__ = ["WriteArgs", "WriteOutput", "write_tool"]


class WriteArgs(TypedDict):
    """What to write: a path and the file's whole new content."""

    path: Annotated[str, "The file: relative to the workspace root, or absolute"]
    content: Annotated[str, "The file's whole new content"]


@dataclass(frozen=True)
class WriteOutput:
    """The file written: the path as shown, whether it is new, its size, and the lines changed."""

    path: str
    created: bool
    bytes_written: int
    lines: int
    change: ChangedLines


def write_tool(workspace: Workspace) -> ToolDefinition[WriteArgs, WriteOutput]:
    """The `write` tool over `workspace`."""

    async def write(args: WriteArgs, ctx: ToolRunContext) -> Result[WriteOutput, ToolFailure]:
        where = await workspace.resolve(ctx, args["path"])
        if isinstance(where, ToolFailure):
            return Failure(where)
        if (not_a_file := file_target(where, args["path"])) is not None:
            return Failure(not_a_file)
        loaded = await current_text(ctx, where)
        if isinstance(loaded, ToolFailure):
            return Failure(loaded)
        content = args["content"]
        written = await commit(ctx, workspace, where, loaded, content, verb="write")
        if isinstance(written, ToolFailure):
            return Failure(written)
        old = None if loaded is None else loaded.text
        return Success(
            WriteOutput(
                path=where.shown,
                created=loaded is None,
                bytes_written=written.size,
                lines=len(content.splitlines()),
                change=bounded_change(changed_lines(old, content), workspace.limits),
            )
        )

    return define_leaf(
        name="write",
        description=(
            "Create a text file, or replace an existing file's whole content (missing folders "
            "are created). To change part of a file, use edit instead."
        ),
        parameters=WriteArgs,
        output=WriteOutput,
        render=_render,
        card=_card,
        execute=write,
        pending=_pending,
        limits=workspace.limits,
    )


def _render(args: WriteArgs, out: WriteOutput) -> tuple[TextBlock, ...]:
    size = plural(out.lines, "line")
    return (
        TextBlock(f"Created {out.path} ({size})" if out.created else f"Wrote {size} to {out.path}"),
    )


def _card(args: WriteArgs, out: WriteOutput) -> DiffResultCard:
    title = f"Created {out.path}" if out.created else f"Wrote {out.path}"
    return diff_result_card(title, out.path, out.change)


def _pending(args: WriteArgs) -> ToolCallView:
    return pending_diff_card(f"Write {args['path']}", args["path"], None, args["content"], 1)
