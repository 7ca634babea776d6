"""The `edit` leaf: replace an exact text in a file read before, once `edit` is granted.

Replace an exact text in a file read before, once `edit` is granted; the model sees a unified diff
of the change. An edit that cannot apply fails before anyone is asked.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Annotated, NotRequired, TypedDict

from returns.result import Failure, Result, Success

from toolfx.core.json import plural
from toolfx.core.plaintext import unified_text_diff
from toolfx.core.tools import (
    DiffResultCard,
    ErrorCode,
    TextBlock,
    ToolCallView,
    ToolDefinition,
    ToolFailure,
    ToolRunContext,
)
from toolfx.leaves._diffs import ChangedLines, changed_lines, diff_result_card, pending_diff_card
from toolfx.leaves._files import bounded_change, bounded_diff, commit, current_text, file_target
from toolfx.leaves._leaf import define_leaf
from toolfx.leaves.workspace import Workspace

__all__ = ["EditArgs", "EditOutput", "edit_tool"]


class EditArgs(TypedDict):
    """What to change: a file, the exact text to replace, its replacement, and how often."""

    path: Annotated[str, "The file: relative to the workspace root, or absolute"]
    old: Annotated[str, "The exact text to replace, with enough context to occur only once"]
    new: Annotated[str, "The text to put in its place"]
    replace_all: NotRequired[
        Annotated[bool, "Replace every occurrence of old (default false: it must occur once)"]
    ]


@dataclass(frozen=True)
class EditOutput:
    """The edit made: the path as shown, how many replacements, the diff and the lines changed."""

    path: str
    replacements: int
    diff: str
    change: ChangedLines


def edit_tool(workspace: Workspace) -> ToolDefinition[EditArgs, EditOutput]:
    """The `edit` tool over `workspace`."""

    async def edit(args: EditArgs, ctx: ToolRunContext) -> Result[EditOutput, ToolFailure]:
        if not args["old"]:
            return Failure(_invalid("old is empty; to create a file, use write"))
        if args["old"] == args["new"]:
            return Failure(_invalid("old and new are the same; the edit would change nothing"))
        where = await workspace.resolve(ctx, args["path"])
        if isinstance(where, ToolFailure):
            return Failure(where)
        if (not_a_file := file_target(where, args["path"])) is not None:
            return Failure(not_a_file)
        loaded = await current_text(ctx, where)
        if isinstance(loaded, ToolFailure):
            return Failure(loaded)
        if loaded is None:
            return Failure(ToolFailure(f"{where.shown} does not exist; to create it, use write"))
        stale = workspace.changed_since_read(loaded.stat)
        if stale is not None:
            return Failure(ToolFailure(f"{where.shown} was not edited: {stale}"))
        replaced = _replace(loaded.text, args, where.shown)
        if isinstance(replaced, ToolFailure):
            return Failure(replaced)
        text, count = replaced
        written = await commit(ctx, workspace, where, loaded, text, verb="edit")
        if isinstance(written, ToolFailure):
            return Failure(written)
        diffing = functools.partial(unified_text_diff, where.shown, loaded.text, text)
        diff = bounded_diff(await ctx.runtime.run_blocking(diffing), workspace.limits, _READ_IT)
        change = bounded_change(changed_lines(loaded.text, text), workspace.limits)
        return Success(EditOutput(where.shown, count, diff, change))

    return define_leaf(
        name="edit",
        description=(
            "Replace an exact text in a file with another. Read the file first. old must occur "
            "exactly once (add surrounding lines to make it unique) unless replace_all is set."
        ),
        parameters=EditArgs,
        output=EditOutput,
        render=_render,
        card=_card,
        execute=edit,
        pending=_pending,
        limits=workspace.limits,
    )


def _invalid(message: str) -> ToolFailure:
    return ToolFailure.of(ErrorCode.INVALID_ARGS, message)


def _replace(text: str, args: EditArgs, shown: str) -> tuple[str, int] | ToolFailure:
    old, replace_all = args["old"], args.get("replace_all", False)
    count = text.count(old)
    if count == 0:
        hint = (
            "It does match if whitespace is ignored: copy the indentation and line breaks "
            "exactly as read."
            if _squeezed(old) in _squeezed(text)
            else "Read the file again to see its current text."
        )
        return ToolFailure(f"old was not found in {shown}. {hint}")
    if count > 1 and not replace_all:
        return ToolFailure(
            f"old occurs {count} times in {shown}; add surrounding lines to make it unique, "
            "or set replace_all to replace every occurrence"
        )
    return text.replace(old, args["new"], -1 if replace_all else 1), count if replace_all else 1


def _squeezed(text: str) -> str:
    return " ".join(text.split())


_READ_IT = "; read the file"
"""What the model is told to do when the diff it is shown was cut."""


def _render(args: EditArgs, out: EditOutput) -> tuple[TextBlock, ...]:
    head = f"Edited {out.path}: {plural(out.replacements, 'replacement')}"
    return (TextBlock(f"{head}\n{out.diff.rstrip()}"),)


def _card(args: EditArgs, out: EditOutput) -> DiffResultCard:
    return diff_result_card(f"Edited {out.path}", out.path, out.change)


def _pending(args: EditArgs) -> ToolCallView:
    return pending_diff_card(  # snippets: their place is found when the edit runs
        f"Edit {args['path']}", args["path"], args["old"], args["new"], None
    )
