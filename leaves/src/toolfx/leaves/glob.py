"""The `glob` leaf: the files whose path below a folder matches a glob pattern, newest first,
at most 100 of them, with the total counted."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Final, NotRequired, TypedDict

from returns.result import Failure, Result, Success

from toolfx.core import (
    ErrorCode,
    TextBlock,
    ToolDefinition,
    ToolFailure,
    ToolRunContext,
)
from toolfx.core.presentation import GenericCallCard, SearchResultCard, ToolCallView
from toolfx.leaves.cards import define_leaf
from toolfx.leaves.globs import glob_regex
from toolfx.leaves.search import files_to_search, search_title
from toolfx.leaves.workspace import Workspace

__all__ = ["MAX_PATHS", "GlobArgs", "GlobOutput", "glob_tool"]

MAX_PATHS: Final = 100
"""How many paths a glob lists at most (the most recently modified)."""


class GlobArgs(TypedDict):
    """What to find: a glob pattern, and optionally the folder to search."""

    pattern: Annotated[
        str, "A glob matched against paths below the folder, e.g. `**/*.py` or `src/*.ts`"
    ]
    path: NotRequired[
        Annotated[str, "The folder to search: relative to the workspace root, or absolute"]
    ]


@dataclass(frozen=True)
class GlobOutput:
    """The paths found (as shown, newest first), how many matched in all, and whether cut."""

    paths: tuple[str, ...]
    total: int
    truncated: bool


def glob_tool(workspace: Workspace) -> ToolDefinition[GlobArgs, GlobOutput]:
    """The `glob` tool over `workspace`."""

    async def glob(args: GlobArgs, ctx: ToolRunContext) -> Result[GlobOutput, ToolFailure]:
        pattern = args["pattern"]
        if not pattern or pattern.startswith("/"):
            return Failure(
                ToolFailure.of(
                    ErrorCode.INVALID_ARGS,
                    "pattern must be a relative glob; give the folder to search as path",
                )
            )
        try:
            matcher = glob_regex(pattern)
        except re.error as error:
            message = f"pattern {pattern!r} is not a valid glob: {error}"
            return Failure(ToolFailure.of(ErrorCode.INVALID_ARGS, message))
        found = await files_to_search(ctx, workspace, args.get("path", "."), "glob")
        if isinstance(found, ToolFailure):
            return Failure(found)
        paths = [file.shown for file in found if matcher.fullmatch(file.relative)]
        shown = tuple(paths[:MAX_PATHS])
        return Success(GlobOutput(shown, len(paths), len(shown) < len(paths)))

    return define_leaf(
        name="glob",
        description=(
            "Find files by a glob pattern matched against their path below a folder (default: "
            "the workspace root): `*` and `?` stay within one folder, `**/` spans any depth, "
            "`[abc]` and `{ts,tsx}` pick. Lists at most 100 paths, most recently modified first."
        ),
        parameters=GlobArgs,
        output=GlobOutput,
        render=_render,
        card=_card,
        execute=glob,
        pending=_pending,
        parallel=True,
    )


def _render(args: GlobArgs, out: GlobOutput) -> tuple[TextBlock, ...]:
    if not out.paths:
        return (TextBlock(f"No files match {args['pattern']}."),)
    body = "\n".join(out.paths)
    if out.truncated:
        body += (
            f"\n\n(Showing the {len(out.paths)} most recently modified of {out.total} files; "
            "narrow the pattern or the path to see the rest.)"
        )
    return (TextBlock(body),)


def _card(args: GlobArgs, out: GlobOutput) -> SearchResultCard:
    return SearchResultCard(
        shape="paths",
        truncated=out.truncated,
        total=out.total,
        paths=out.paths,
        title=_title(args),
    )


def _pending(args: GlobArgs) -> ToolCallView:
    return GenericCallCard(title=_title(args), kind="search")


def _title(args: GlobArgs) -> str:
    return search_title("Glob", args["pattern"], args.get("path"))
