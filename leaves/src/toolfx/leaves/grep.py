"""The `grep` leaf: the lines of text files matching a regular expression, grouped by file
(newest first), at most 100 shown, every match counted."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from posixpath import basename
from typing import Annotated, Final, NotRequired, TypedDict, final

from returns.result import Failure, Result, Success

from toolfx.core import (
    ErrorCode,
    FileError,
    TextBlock,
    ToolDefinition,
    ToolFailure,
    ToolRunContext,
)
from toolfx.core.json_render import plural
from toolfx.core.presentation import (
    GenericCallCard,
    SearchMatch,
    SearchResultCard,
    ToolCallView,
)
from toolfx.leaves.cards import define_leaf
from toolfx.leaves.globs import glob_regex
from toolfx.leaves.search import FoundFile, files_to_search, keep_going, search_title
from toolfx.leaves.text_files import cut_line, decode_text
from toolfx.leaves.workspace import Workspace

__all__ = ["MAX_FILE_BYTES", "MAX_MATCHES", "GrepArgs", "GrepMatch", "GrepOutput", "grep_tool"]

MAX_MATCHES: Final = 100
"""How many matching lines a grep shows at most (all are counted)."""

MAX_FILE_BYTES: Final = 5 * 1024 * 1024
"""Files larger than this are not searched (and counted as skipped)."""


class GrepArgs(TypedDict):
    """What to search for: a regex, and optionally the folder or file and a filter on files."""

    regex: Annotated[str, "A Python regular expression searched for in each line"]
    path: NotRequired[
        Annotated[str, "The folder or file to search: relative to the workspace root, or absolute"]
    ]
    include: NotRequired[
        Annotated[
            str,
            "Only files matching this glob: on the file name (`*.py`), or with a `/` on the "
            "path below the folder (`src/**/*.ts`)",
        ]
    ]


@dataclass(frozen=True)
class GrepMatch:
    """One matching line: the file as shown, its number (from 1), its text (cut when long)."""

    path: str
    line: int
    text: str


@dataclass(frozen=True)
class GrepOutput:
    """The matches shown (grouped by file), all matches and files with one, and files skipped."""

    matches: tuple[GrepMatch, ...]
    total: int
    files: int
    truncated: bool
    skipped_large: int


def grep_tool(workspace: Workspace) -> ToolDefinition[GrepArgs, GrepOutput]:
    """The `grep` tool over `workspace`."""

    async def grep(args: GrepArgs, ctx: ToolRunContext) -> Result[GrepOutput, ToolFailure]:
        try:
            regex = re.compile(args["regex"])
        except re.error as error:
            message = f"regex {args['regex']!r} is not a valid Python regular expression: {error}"
            return Failure(ToolFailure.of(ErrorCode.INVALID_ARGS, message))
        include = args.get("include", "*")
        try:
            wanted = glob_regex(include)
        except re.error as error:
            message = f"include {include!r} is not a valid glob: {error}"
            return Failure(ToolFailure.of(ErrorCode.INVALID_ARGS, message))
        found = await files_to_search(ctx, workspace, args.get("path", "."), "grep")
        if isinstance(found, ToolFailure):
            return Failure(found)
        on_path = "/" in include  # else on the file name
        kept = (f for f in found if wanted.fullmatch(f.relative if on_path else basename(f.path)))
        return Success(await _search(ctx, workspace, regex, tuple(kept)))

    return define_leaf(
        name="grep",
        description=(
            "Search the text files of a folder (default: the workspace root) for lines matching "
            "a Python regular expression; `include` keeps only files matching a glob. Shows at "
            "most 100 matching lines, grouped by file, most recently modified files first."
        ),
        parameters=GrepArgs,
        output=GrepOutput,
        render=_render,
        card=_card,
        execute=grep,
        pending=_pending,
        parallel=True,
    )


@final
class _Shown:
    """The matches shown so far: at most `MAX_MATCHES`, within the byte limit, a prefix."""

    __slots__ = ("full", "matches", "max_bytes", "size")

    def __init__(self, max_bytes: int) -> None:
        self.matches: list[GrepMatch] = []
        self.size = 0
        self.max_bytes = max_bytes
        self.full = False

    def add(self, match: GrepMatch) -> None:
        """Show `match` if it fits; once one does not, none after it is shown."""
        cost = len(match.path) + len(match.text.encode("utf-8", "surrogatepass")) + 12
        if self.matches and self.size + cost > self.max_bytes:
            self.full = True
            return
        self.matches.append(match)
        self.size += cost
        self.full = len(self.matches) >= MAX_MATCHES


async def _search(
    ctx: ToolRunContext, workspace: Workspace, regex: re.Pattern[str], found: tuple[FoundFile, ...]
) -> GrepOutput:
    max_chars = workspace.limits.max_line_chars
    shown = _Shown(workspace.limits.max_bytes)
    total = files = skipped = 0
    for step, file in enumerate(found, start=1):
        await keep_going(ctx, step)
        if file.size > MAX_FILE_BYTES:
            skipped += 1
            continue
        text = await _text_of(ctx, file)
        if text is None:
            continue
        before = total
        for number, line in enumerate(text.splitlines(), start=1):
            if regex.search(line) is None:
                continue
            total += 1
            if not shown.full:
                shown.add(GrepMatch(file.shown, number, cut_line(line, max_chars)))
        if total > before:
            files += 1
    matches = tuple(shown.matches)
    return GrepOutput(matches, total, files, len(matches) < total, skipped)


async def _text_of(ctx: ToolRunContext, file: FoundFile) -> str | None:
    """The file's text; None for a binary file or one that cannot be read (or grew too large)."""
    try:
        data = await ctx.runtime.files.read_bytes(
            file.path, within=file.within, limit=MAX_FILE_BYTES + 1
        )
    except FileError:
        return None
    return None if len(data) > MAX_FILE_BYTES else decode_text(data)


def _render(args: GrepArgs, out: GrepOutput) -> tuple[TextBlock, ...]:
    if not out.matches:
        parts = [f"No lines match {args['regex']}."]
    else:
        parts = [f"Found {plural(out.total, 'matching line')} in {plural(out.files, 'file')}."]
        for path, group in itertools.groupby(out.matches, key=lambda match: match.path):
            parts.append(f"{path}:\n" + "\n".join(f"  {m.line}: {m.text}" for m in group))
    if out.truncated:
        parts.append(
            f"(Showing the first {len(out.matches)} of {out.total} matching lines; narrow the "
            "regex, the path or include to see the rest.)"
        )
    if out.skipped_large:
        parts.append(
            f"({plural(out.skipped_large, 'file')} over {MAX_FILE_BYTES // (1024 * 1024)} MB "
            "not searched.)"
        )
    return (TextBlock("\n\n".join(parts)),)


def _card(args: GrepArgs, out: GrepOutput) -> SearchResultCard:
    return SearchResultCard(
        shape="matches",
        truncated=out.truncated,
        total=out.total,
        matches=tuple(SearchMatch(m.path, m.line, m.text) for m in out.matches),
        title=_title(args),
    )


def _pending(args: GrepArgs) -> ToolCallView:
    return GenericCallCard(title=_title(args), kind="search")


def _title(args: GrepArgs) -> str:
    return search_title("Grep", args["regex"], args.get("path"))
