"""The `grep` leaf: the lines of text files that match a regular expression, grouped by file.

The lines of text files matching a regular expression, grouped by file (newest first), at most 100
shown, every match counted.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from dataclasses import dataclass
from typing import Annotated, Final, NotRequired, TypedDict, final

from returns.result import Failure, Result, Success

from toolfx.core.json import plural
from toolfx.core.plaintext import breaks_as_newlines
from toolfx.core.runtime import FileError
from toolfx.core.tools import (
    ErrorCode,
    GenericCallCard,
    SearchMatch,
    SearchResultCard,
    TextBlock,
    ToolCallView,
    ToolDefinition,
    ToolFailure,
    ToolRunContext,
)
from toolfx.leaves._globs import glob_regex
from toolfx.leaves._leaf import define_leaf
from toolfx.leaves._line_search import line_slices, scan_slice
from toolfx.leaves._regexes import LinearRegex, PatternError, compile_linear
from toolfx.leaves._search import (
    FoundFile,
    SearchLimits,
    files_matching,
    files_to_search,
    keep_going,
    search_title,
)
from toolfx.leaves._text_files import cut_line, decode_text
from toolfx.leaves.workspace import Workspace

__all__ = ["MAX_FILE_BYTES", "MAX_MATCHES", "GrepArgs", "GrepMatch", "GrepOutput", "grep_tool"]

MAX_MATCHES: Final = 100
"""How many matching lines a grep shows at most (all are counted)."""

MAX_FILE_BYTES: Final = 5 * 1024 * 1024
"""Files larger than this are not searched (and counted as skipped)."""


class GrepArgs(TypedDict):
    """What to search for: a regex, and optionally the folder or file and a filter on files."""

    regex: Annotated[
        str,
        "A regular expression (RE2 syntax: no backreferences or lookaround) searched for in "
        "each line",
    ]
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
    """The matches shown (grouped by file), all matches and files with one, files skipped, and
    why the search stopped before the end (None: it searched everything)."""

    matches: tuple[GrepMatch, ...]
    total: int
    files: int
    truncated: bool
    skipped_large: int
    stopped_early: str | None = None
    withheld: int = 0
    """Files left out because a rule does not allow grep or read for them."""


def grep_tool(
    workspace: Workspace, limits: SearchLimits | None = None
) -> ToolDefinition[GrepArgs, GrepOutput]:
    """The `grep` tool over `workspace`, doing no more work than `limits` allow."""
    bounds = SearchLimits() if limits is None else limits

    async def grep(args: GrepArgs, ctx: ToolRunContext) -> Result[GrepOutput, ToolFailure]:
        include = args.get("include", "*")
        try:  # both checked before any file is looked at
            regex = compile_linear(args["regex"], "regex", single_line=True)
            wanted = glob_regex(include, "include")
        except PatternError as error:
            return Failure(ToolFailure.of(ErrorCode.INVALID_ARGS, str(error)))
        found = await files_to_search(
            ctx, workspace, args.get("path", "."), ("grep", "read"), bounds.max_entries
        )
        if isinstance(found, ToolFailure):
            return Failure(found)
        kept = await files_matching(ctx, wanted, found.files, on_path="/" in include)
        searched = await _Search(ctx, workspace, bounds, regex).run(kept)
        if searched.stopped_early is None and found.stopped_early is not None:
            searched = dataclasses.replace(searched, stopped_early=found.stopped_early)
        return Success(dataclasses.replace(searched, withheld=found.withheld))

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
        limits=workspace.limits,
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

    @property
    def room(self) -> int:
        """How many more matches could be shown."""
        return 0 if self.full else MAX_MATCHES - len(self.matches)

    def add(self, match: GrepMatch) -> None:
        """Show `match` if it fits; once one does not, none after it is shown."""
        cost = len(match.path) + len(match.text.encode("utf-8", "surrogatepass")) + 12
        if self.matches and self.size + cost > self.max_bytes:
            self.full = True
            return
        self.matches.append(match)
        self.size += cost
        self.full = len(self.matches) >= MAX_MATCHES


@final
class _Search:
    """One grep over the files kept: each searched off the event loop, a slice at a time."""

    __slots__ = (
        "ctx",
        "files",
        "limits",
        "regex",
        "searched",
        "shown",
        "skipped",
        "steps",
        "total",
        "workspace",
    )

    def __init__(
        self, ctx: ToolRunContext, workspace: Workspace, limits: SearchLimits, regex: LinearRegex
    ) -> None:
        self.ctx, self.workspace, self.limits, self.regex = ctx, workspace, limits, regex
        self.shown = _Shown(workspace.limits.max_bytes)
        self.total = self.files = self.skipped = self.searched = self.steps = 0

    async def run(self, found: tuple[FoundFile, ...]) -> GrepOutput:
        """Search `found` in order until done or a work limit is reached."""
        stopped: str | None = None
        for file in found:
            await self._step()
            if file.size > MAX_FILE_BYTES:
                self.skipped += 1
                continue
            if self.searched + file.size > self.limits.max_search_bytes:
                stopped = f"searched {self.searched} bytes of files, the most one grep may"
                break
            data = await _text_of(self.ctx, file)
            if data is not None:
                self.searched += len(data)
                stopped = await self._search_file(file, data)
                if stopped is not None:
                    break
        matches = tuple(self.shown.matches)
        truncated = len(matches) < self.total
        return GrepOutput(matches, self.total, self.files, truncated, self.skipped, stopped)

    async def _search_file(self, file: FoundFile, data: bytes) -> str | None:
        """Count and show the file's matching lines; why counting stopped, if it did."""
        runtime, max_chars = self.ctx.runtime, self.workspace.limits.max_line_chars
        lines = await runtime.run_blocking(functools.partial(breaks_as_newlines, data))
        before = self.total
        for bounds in line_slices(lines):
            await self._step()
            limit = self.limits.max_counted_matches - self.total
            scan = functools.partial(scan_slice, self.regex, lines, bounds, self.shown.room, limit)
            found = await runtime.run_blocking(scan)
            for hit in found.hits:
                text = cut_line(hit.text.decode("utf-8"), max_chars)
                self.shown.add(GrepMatch(file.shown, hit.number, text))
            self.total += found.matched
            if self.total >= self.limits.max_counted_matches:
                self.files += 1
                return f"counted {self.total} matching lines, the most one grep counts"
        if self.total > before:
            self.files += 1
        return None

    async def _step(self) -> None:
        self.steps += 1
        await keep_going(self.ctx, self.steps)


async def _text_of(ctx: ToolRunContext, file: FoundFile) -> bytes | None:
    """The file's bytes; None for a binary file or one that cannot be read (or grew too large)."""
    try:
        data = await ctx.runtime.files.read_bytes(
            file.path, within=file.within, limit=MAX_FILE_BYTES + 1, resolved=True
        )
    except FileError:
        return None
    return None if len(data) > MAX_FILE_BYTES or decode_text(data) is None else data


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
    if out.stopped_early is not None:
        parts.append(
            f"(The search stopped early: it {out.stopped_early}. There may be more matches: "
            "narrow the path, include or the regex.)"
        )
    if out.withheld:
        parts.append(f"({plural(out.withheld, 'file')} withheld by permission rules.)")
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
