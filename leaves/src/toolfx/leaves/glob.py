"""The `glob` leaf: the files below a folder whose path matches a glob pattern, newest first.

The files whose path below a folder matches a glob pattern, newest first, at most 100 of them, with
the total counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Final, NotRequired, TypedDict

from returns.result import Failure, Result, Success

from toolfx.core.tools import (
    ErrorCode,
    GenericCallCard,
    SearchResultCard,
    TextBlock,
    ToolCallView,
    ToolDefinition,
    ToolFailure,
    ToolRunContext,
)
from toolfx.leaves._globs import glob_regex
from toolfx.leaves._leaf import define_leaf
from toolfx.leaves._regexes import PatternError
from toolfx.leaves._search import SearchLimits, files_matching, files_to_search, search_title
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
    """The paths found (as shown, newest first), how many matched in all, whether cut, and why
    the walk stopped before the end (None: it looked everywhere)."""

    paths: tuple[str, ...]
    total: int
    truncated: bool
    stopped_early: str | None = None
    withheld: int = 0
    """Files left out because a rule does not allow glob for them."""


def glob_tool(
    workspace: Workspace, limits: SearchLimits | None = None
) -> ToolDefinition[GlobArgs, GlobOutput]:
    """The `glob` tool over `workspace`, walking no more than `limits` allow."""
    max_entries = (SearchLimits() if limits is None else limits).max_entries

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
        except PatternError as error:
            return Failure(ToolFailure.of(ErrorCode.INVALID_ARGS, str(error)))
        found = await files_to_search(ctx, workspace, args.get("path", "."), ("glob",), max_entries)
        if isinstance(found, ToolFailure):
            return Failure(found)
        paths = [
            file.shown for file in await files_matching(ctx, matcher, found.files, on_path=True)
        ]
        shown = _within(paths, workspace.limits.max_bytes)
        truncated = len(shown) < len(paths)
        return Success(
            GlobOutput(shown, len(paths), truncated, found.stopped_early, found.withheld)
        )

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
        limits=workspace.limits,
    )


def _within(paths: list[str], max_bytes: int) -> tuple[str, ...]:
    """The first `MAX_PATHS` paths, fewer when more would pass `max_bytes` (at least one)."""
    shown: list[str] = []
    size = 0
    for path in paths[:MAX_PATHS]:
        size += len(path.encode("utf-8", "surrogateescape")) + 1
        if shown and size > max_bytes:
            break
        shown.append(path)
    return tuple(shown)


def _render(args: GlobArgs, out: GlobOutput) -> tuple[TextBlock, ...]:
    body = "\n".join(out.paths) if out.paths else f"No files match {args['pattern']}."
    if out.truncated:
        body += (
            f"\n\n(Showing the {len(out.paths)} most recently modified of {out.total} files; "
            "narrow the pattern or the path to see the rest.)"
        )
    if out.stopped_early is not None:
        body += (
            f"\n\n(The search stopped early: it {out.stopped_early}. More files may match: "
            "narrow the path.)"
        )
    if out.withheld:
        body += f"\n\n({out.withheld} files withheld by permission rules.)"
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
