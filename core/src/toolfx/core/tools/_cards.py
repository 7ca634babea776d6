"""Presentation cards: provider-neutral render intents for a call's pending and completed state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, final

from toolfx.core.json import FrozenJson

__all__ = [
    "CodeCallCard",
    "CodeResultCard",
    "DiffCallCard",
    "DiffResultCard",
    "FileDiff",
    "FileLocation",
    "GenericCallCard",
    "GenericResultCard",
    "ReadFileLine",
    "ReadResultCard",
    "SearchMatch",
    "SearchResultCard",
    "TerminalCallCard",
    "TerminalResultCard",
    "ToolCallKind",
    "ToolCallView",
    "ToolResultView",
    "WebFetchResultCard",
    "WebSearchResultCard",
    "WebSource",
]

ToolCallKind = Literal["read", "edit", "delete", "move", "search", "execute", "fetch", "other"]
"""Picks an icon on a generic card."""


@final
@dataclass(frozen=True, slots=True)
class FileLocation:
    """A file a call reads or modifies, optionally at a 1-based line."""

    path: str
    line: int | None = None


@final
@dataclass(frozen=True, slots=True)
class FileDiff:
    """A change to one file; old_text is None for a new file."""

    path: str
    old_text: str | None
    new_text: str
    start_line: int | None = 1
    """The file's line number of the texts' first lines (the same before and after: what comes
    before them is unchanged); None when the texts are snippets whose place is not known yet."""


@final
@dataclass(frozen=True, slots=True)
class ReadFileLine:
    """One 1-based numbered line of a read window."""

    number: int
    text: str


@final
@dataclass(frozen=True, slots=True)
class GenericCallCard:
    """The default pending card: a title, an icon kind, raw input and followed files."""

    title: str
    kind: ToolCallKind | None = None
    raw_input: FrozenJson = None
    content: str | None = None
    locations: tuple[FileLocation, ...] = ()
    card: Literal["generic"] = "generic"


@final
@dataclass(frozen=True, slots=True)
class TerminalCallCard:
    """A pending shell command."""

    title: str
    description: str | None = None
    cwd: str | None = None
    card: Literal["terminal"] = "terminal"


@final
@dataclass(frozen=True, slots=True)
class DiffCallCard:
    """A pending file creation or modification, shown as inline diffs."""

    title: str
    diffs: tuple[FileDiff, ...]
    locations: tuple[FileLocation, ...] = ()
    card: Literal["diff"] = "diff"


@final
@dataclass(frozen=True, slots=True)
class CodeCallCard:
    """A pending program (Code Mode's `run_code`): its source, shown as code."""

    title: str
    code: str
    lang: str | None = None
    """A language hint for highlighting (`python` for `run_code`)."""
    card: Literal["code"] = "code"


ToolCallView = GenericCallCard | TerminalCallCard | DiffCallCard | CodeCallCard
"""How a UI shows a call while it is pending."""


@final
@dataclass(frozen=True, slots=True)
class GenericResultCard:
    """The default completed card."""

    title: str | None = None
    content: str | None = None
    card: Literal["generic"] = "generic"


@final
@dataclass(frozen=True, slots=True)
class TerminalResultCard:
    """A completed shell command: its captured output and how it ended."""

    title: str | None = None
    output: str | None = None
    exit_code: int | None = None
    signal: str | None = None
    duration: float | None = None
    """How long the command ran, in seconds (None: not measured)."""
    timed_out: bool = False
    """Whether the command was stopped at its timeout (it failed, whatever its exit)."""
    card: Literal["terminal"] = "terminal"


@final
@dataclass(frozen=True, slots=True)
class DiffResultCard:
    """A completed file mutation: the change to show."""

    diffs: tuple[FileDiff, ...]
    title: str | None = None
    card: Literal["diff"] = "diff"


@final
@dataclass(frozen=True, slots=True)
class SearchMatch:
    """One matching line of a content search."""

    path: str
    line: int
    text: str


@final
@dataclass(frozen=True, slots=True)
class SearchResultCard:
    """A completed discovery search: matches grouped by file, or a flat path list."""

    shape: Literal["matches", "paths"]
    truncated: bool
    total: int
    paths: tuple[str, ...] = ()
    matches: tuple[SearchMatch, ...] = ()
    title: str | None = None
    card: Literal["search"] = "search"


@final
@dataclass(frozen=True, slots=True)
class ReadResultCard:
    """A completed file read: a numbered window of lines."""

    path: str
    offset: int
    lines: tuple[ReadFileLine, ...]
    total_lines: int
    title: str | None = None
    lang: str | None = None
    content: str | None = None
    card: Literal["read"] = "read"


@final
@dataclass(frozen=True, slots=True)
class WebSource:
    """One source of a web search."""

    url: str
    title: str | None = None


@final
@dataclass(frozen=True, slots=True)
class WebSearchResultCard:
    """A completed web search."""

    sources: tuple[WebSource, ...]
    truncated: bool
    answer: str | None = None
    title: str | None = None
    card: Literal["web"] = "web"
    kind: Literal["search"] = "search"


@final
@dataclass(frozen=True, slots=True)
class WebFetchResultCard:
    """A completed web fetch."""

    url: str
    status_code: int
    truncated: bool
    title: str | None = None
    card: Literal["web"] = "web"
    kind: Literal["fetch"] = "fetch"


@final
@dataclass(frozen=True, slots=True)
class CodeResultCard:
    """A completed program: how many tool calls it made, how many failed, and its result."""

    calls: int
    failed: int
    title: str | None = None
    content: str | None = None
    """What the program gave the model (its value, what it printed), or why it failed."""
    card: Literal["code"] = "code"


ToolResultView = (
    GenericResultCard
    | TerminalResultCard
    | DiffResultCard
    | SearchResultCard
    | ReadResultCard
    | WebSearchResultCard
    | WebFetchResultCard
    | CodeResultCard
)
"""How a UI shows a call once it has completed."""
