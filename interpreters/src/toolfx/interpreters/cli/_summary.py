"""One-line summaries of calls: what a call is about (its subject, from its pending card) and what
it came to (its facts, from its completed card), for every card kind, so any tool gets a
sensible line: `✓ read src/app.py · 18 lines`, `✓ bash pytest · exit 0 · 2.1 s`.

A call failed when its result is an error, or when its terminal card says the command timed out,
was killed by a signal or exited non-zero: a failed call is shown whole (its full card) and
counted as failed in the summary, under its error code or how the command ended.

Everything here comes from a tool, so every piece is cut to `MAX_PART_CHARS` and made visible
with its newlines escaped (a call id is shown whole by `visible_id`, so no two look the same);
the lines are `Text` that never wraps (a console crops it at its width with an ellipsis), so a
summary is one line whatever the card holds.
"""

from __future__ import annotations

import json
from typing import Final, assert_never

from rich.console import Group
from rich.text import Text

from toolfx.core.json import FrozenJson, plural
from toolfx.core.tools import (
    CodeCallCard,
    CodeResultCard,
    DiffCallCard,
    DiffResultCard,
    FileDiff,
    GenericCallCard,
    GenericResultCard,
    ReadResultCard,
    SearchResultCard,
    TerminalCallCard,
    TerminalResultCard,
    ToolCallView,
    ToolResultView,
    WebFetchResultCard,
    WebSearchResultCard,
)
from toolfx.interpreters.cli._cards import command_ending, diff_lines
from toolfx.interpreters.cli._visible import visible_id, visible_line

__all__ = [
    "MAX_PART_CHARS",
    "call_subject",
    "failure",
    "pending_line",
    "result_facts",
    "settled_line",
]

MAX_PART_CHARS: Final = 200
"""The most characters of a tool's text (a subject, a line of content) a summary takes."""

_MARKS: Final = {False: ("✓", "green"), True: ("↻ replayed", "cyan")}
"""The mark of a settled call: run now, or replayed from a journal (first, so no crop hides it)."""


def call_subject(tool: str, view: ToolCallView) -> str:
    """What a call is about, in one visible line: a command, a path, a pattern, its arguments."""
    match view:
        case TerminalCallCard():
            return _part(view.title)
        case CodeCallCard():
            lines = view.code.count("\n") + (bool(view.code) and not view.code.endswith("\n"))
            return f"{plural(lines, 'line')} of {_part(view.lang or 'code')}"
        case DiffCallCard():
            return _part(_without_verb(tool, view.title))
        case GenericCallCard():
            subject = _without_verb(tool, view.title)
            if not subject and view.raw_input is not None:
                return _part(_compact(view.raw_input))
            return _part(subject)
        case _:
            assert_never(view)


def result_facts(view: ToolResultView) -> str:
    """What a call came to, in one visible line: lines read, how a command ended, lines changed,
    matches found, a program's calls, or the first line of what it gave."""
    match view:
        case ReadResultCard():
            return _read(view)
        case TerminalResultCard():
            return " · ".join(command_ending(view))
        case DiffResultCard():
            return _diffs(view.diffs)
        case SearchResultCard():
            return _search(view)
        case CodeResultCard():
            return f"{plural(view.calls, 'tool call')}, {view.failed} failed"
        case WebSearchResultCard():
            return plural(len(view.sources), "source") + (" · truncated" if view.truncated else "")
        case WebFetchResultCard():
            return f"HTTP {view.status_code}" + (" · truncated" if view.truncated else "")
        case GenericResultCard():
            return _first_line(view.content) or _first_line(view.title) or "done"
        case _:
            assert_never(view)


def failure(code: str | None, view: ToolResultView) -> str | None:
    """How a call failed, as the summary counts it (None: it did not): its error code, or for a
    command that timed out, was killed or exited non-zero, how it ended."""
    if code is not None:
        return code
    if not isinstance(view, TerminalResultCard):
        return None
    if view.timed_out:
        return "timed out"
    if view.signal is not None:
        return "killed"
    return "non-zero exit" if view.exit_code not in (None, 0) else None


def pending_line(tool: str, call_id: str, subject: str) -> Group:
    """The line of a call as it is recorded: `● read · c1  src/app.py`."""
    named = f"{_part(tool)} · {visible_id(call_id)}"
    return _line(("●", "blue"), (named, "bold"), ("  " + subject, ""))


def settled_line(
    tool: str, subject: str, facts: str, *, replayed: bool = False, indent: int = 0
) -> Group:
    """The line of a settled call: `✓ read src/app.py · 18 lines`, or `↻ replayed read ...` for
    a call a journal had settled; `indent` spaces in."""
    about = f" {subject}" if subject else ""
    return _line(
        _MARKS[replayed],
        (_part(tool), "bold"),
        (about, ""),
        (f" · {facts}", "dim"),
        indent=indent,
    )


def _line(mark: tuple[str, str], *parts: tuple[str, str], indent: int = 0) -> Group:
    """One line that never wraps: a console crops it at its width with an ellipsis (in a
    group: `Console.print` would join a bare `Text` into one that wraps)."""
    text = Text.assemble(" " * indent, mark, " ", *parts, no_wrap=True, overflow="ellipsis")
    return Group(text)


def _part(text: str) -> str:
    """A tool's text as one visible line, cut to `MAX_PART_CHARS`."""
    return visible_line(text, MAX_PART_CHARS)


def _first_line(text: str | None) -> str:
    """The first line of a tool's text that is not blank, visible and cut, with how many lines
    the text has when more than one ("" for no text)."""
    if text is None or not text.strip():
        return ""
    body = text.strip("\n")
    first = body.lstrip().split("\n", 1)[0]
    lines = body.count("\n") + 1
    return _part(first) + (f" ({plural(lines, 'line')})" if lines > 1 else "")


def _without_verb(tool: str, title: str) -> str:
    """A card's title without a first word that only names the tool (`Read src/a.py`)."""
    first, _, rest = title.partition(" ")
    return rest if first.casefold() == tool.casefold() else title


def _compact(value: FrozenJson) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _read(view: ReadResultCard) -> str:
    shown = len(view.lines)
    if not shown:
        return _first_line(view.content) or f"nothing at line {view.offset} of {view.total_lines}"
    last = view.offset + shown - 1
    if view.offset == 1 and last >= view.total_lines:
        return plural(shown, "line")
    return f"lines {view.offset}–{last} of {view.total_lines}"


def _diffs(diffs: tuple[FileDiff, ...]) -> str:
    """Lines a change added and removed (`+3 −1`), the lines of a new file, or no change."""
    if len(diffs) == 1 and diffs[0].old_text is None:
        return plural(_changed(diffs[0])[0], "line")
    added = removed = 0
    for diff in diffs:
        plus, minus = _changed(diff)
        added, removed = added + plus, removed + minus
    if not added and not removed:
        return "no change"
    return f"+{added} −{removed}" + (f" in {plural(len(diffs), 'file')}" if len(diffs) > 1 else "")


def _changed(diff: FileDiff) -> tuple[int, int]:
    """How many lines the diff of `diff` adds and removes (its two header lines left out)."""
    added = removed = 0
    for number, line in enumerate(diff_lines(diff)):
        if number < 2:
            continue
        added += line.startswith("+")
        removed += line.startswith("-")
    return added, removed


def _search(view: SearchResultCard) -> str:
    if view.shape == "paths":
        found = plural(view.total, "path")
        return found + (f" ({len(view.paths)} shown)" if view.truncated else "")
    found = plural(view.total, "match", "matches")
    files = plural(len({match.path for match in view.matches}), "file")
    if view.truncated:
        return f"{found} (first {len(view.matches)} in {files})"
    return f"{found} in {files}"
