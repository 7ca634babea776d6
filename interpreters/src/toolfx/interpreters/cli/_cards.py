"""Cards as rich renderables: read windows and diffs highlighted, terminal output with how it
ended, search results listed or grouped by file. Long bodies keep their head and tail, and a
highlighted line longer than `MAX_HIGHLIGHTED_CHARS` is cut, so a card stays small whatever it
holds; diffs are core's bounded `unified_diff`, so a crafted before and after cost linear work.

Everything a card holds comes from a tool, so it is shown through `visible` (names, paths and
lines with their newlines escaped too) and only ever as `Text` or `Syntax`, never as markup."""

from __future__ import annotations

import itertools
import json
import math
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Final, assert_never

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

from toolfx.core.json import FrozenJson
from toolfx.core.plaintext import NO_NEWLINE, ended_lines, unified_diff
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
from toolfx.interpreters.cli._visible import visible, visible_json

__all__ = [
    "HEAD_LINES",
    "MAX_HIGHLIGHTED_CHARS",
    "MIN_ELIDED",
    "TAIL_LINES",
    "call_body",
    "command_ending",
    "diff_lines",
    "diff_text_body",
    "result_body",
]

HEAD_LINES: Final = 15
"""How many first lines of a long body are shown."""
TAIL_LINES: Final = 5
"""How many last lines of a long body are shown after the elision mark."""
MIN_ELIDED: Final = 5
"""A body is elided only when this many lines or more would be left out."""
MAX_HIGHLIGHTED_CHARS: Final = 500
"""The most characters of one highlighted line shown; the rest is counted."""

_THEME: Final = "ansi_dark"


def call_body(view: ToolCallView) -> RenderableType:
    """The body of a pending call's card."""
    parts: list[RenderableType] = [Text(visible(view.title), style="bold")]
    match view:
        case GenericCallCard():
            if view.content is not None:
                parts.append(_plain(view.content))
            if view.raw_input is not None:
                parts.append(Text(visible_json(_compact(view.raw_input)), style="dim"))
        case TerminalCallCard():
            if view.description is not None:
                parts.append(Text(visible(view.description), style="italic"))
            if view.cwd is not None:
                parts.append(Text(f"in {_name(view.cwd)}", style="dim"))
        case DiffCallCard():
            parts.extend(_diff(diff) for diff in view.diffs)
        case CodeCallCard():
            parts.append(_highlighted(_lines(view.code), view.lang or "text", 1))
        case _:
            assert_never(view)
    return Group(*parts)


def result_body(view: ToolResultView) -> RenderableType:
    """The body of a completed call's card."""
    parts: list[RenderableType] = []
    if view.title is not None:
        parts.append(Text(visible(view.title), style="bold"))
    match view:
        case GenericResultCard():
            if view.content is not None:
                parts.append(_plain(view.content))
        case TerminalResultCard():
            if view.output:
                parts.append(_plain(view.output.rstrip("\n")))
            parts.append(_ending(view))
        case DiffResultCard():
            parts.extend(_diff(diff) for diff in view.diffs)
        case SearchResultCard():
            parts.append(_search(view))
        case ReadResultCard():
            parts.extend(_read(view))
        case WebSearchResultCard():
            if view.answer is not None:
                parts.append(_plain(view.answer))
            lines = [
                f"• {_name(s.url)}" + ("" if s.title is None else f"  {_name(s.title)}")
                for s in view.sources
            ]
            parts.append(_shown("\n".join(lines) + ("\n(truncated)" if view.truncated else "")))
        case WebFetchResultCard():
            cut = " (truncated)" if view.truncated else ""
            parts.append(Text(f"{_name(view.url)} → HTTP {view.status_code}{cut}"))
        case CodeResultCard():
            if view.content is not None:
                parts.append(_plain(view.content))
        case _:
            assert_never(view)
    return Group(*parts)


def _compact(value: FrozenJson) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _elided(lines: Iterable[str]) -> tuple[Sequence[str], int, Sequence[str]]:
    """The head, how many lines are left out, and the tail of a long run of lines, holding only
    the lines it keeps."""
    head: list[str] = []
    rest: deque[str] = deque(maxlen=TAIL_LINES + MIN_ELIDED - 1)
    count = 0
    for line in lines:
        (head if count < HEAD_LINES else rest).append(line)
        count += 1
    if count < HEAD_LINES + TAIL_LINES + MIN_ELIDED:
        return [*head, *rest], 0, ()
    return head, count - HEAD_LINES - TAIL_LINES, list(rest)[-TAIL_LINES:]


def _skipped(count: int) -> Text:
    return Text(f"⋮ {count} more lines", style="dim italic")


def _name(text: str) -> str:
    """A name, path or single line from a tool, made visible with its newlines escaped."""
    return visible(text, lines=False)


def _plain(text: str) -> RenderableType:
    """A body of text from a tool, made visible."""
    return _shown(visible(text))


def _shown(text: str) -> RenderableType:
    """Visible text as lines, elided when long."""
    head, skipped, tail = _elided(text.split("\n"))
    if not skipped:
        return Text(text)
    return Group(Text("\n".join(head)), _skipped(skipped), Text("\n".join(tail)))


def _highlighted(lines: Iterable[str], lexer: str, start: int | None) -> RenderableType:
    """Lines from a tool as highlighted code (numbered from `start` unless it is None), made
    visible with long lines cut, elided when many."""

    def block(chunk: Sequence[str], first: int) -> Syntax:
        return Syntax(
            "\n".join(_name(_cut(line)) for line in chunk),
            lexer,
            theme=_THEME,
            background_color="default",
            line_numbers=start is not None,
            start_line=first,
        )

    head, skipped, tail = _elided(lines)
    origin = 1 if start is None else start
    if not skipped:
        return block(head, origin)
    return Group(block(head, origin), _skipped(skipped), block(tail, origin + len(head) + skipped))


def _cut(line: str) -> str:
    """A line cut to `MAX_HIGHLIGHTED_CHARS`, saying how many characters were left out."""
    if len(line) <= MAX_HIGHLIGHTED_CHARS:
        return line
    return f"{line[:MAX_HIGHLIGHTED_CHARS]}… ({len(line) - MAX_HIGHLIGHTED_CHARS} more characters)"


def _lines(text: str) -> list[str]:
    """The lines of a text, split at newlines only (a carriage return stays, to be shown)."""
    return text.removesuffix("\n").split("\n") if text else []


def diff_lines(diff: FileDiff) -> Iterator[str]:
    """The lines (without their ends) of the unified diff a diff card shows, before they are
    made visible, cut and elided; none when nothing changed.

    Hunks are numbered from the diff's start line, so their headers are the file's, as `git diff`
    writes them, and a last line without a newline is marked as git marks it. Snippets whose
    place is not known yet (an edit's arguments: start line None) are diffed as lines without
    their ends, under headers that write `?` for line numbers (`@@ -?,3 +?,4 @@`)."""
    from_file = "/dev/null" if diff.old_text is None else f"a/{diff.path}"
    to_file = f"b/{diff.path}"
    if diff.start_line is None:
        before = [] if diff.old_text is None else _lines(diff.old_text)
        return unified_diff(
            before, _lines(diff.new_text), from_file, to_file, lineterm="", start_line=None
        )
    before = [] if diff.old_text is None else ended_lines(diff.old_text)
    lines = unified_diff(
        before, ended_lines(diff.new_text), from_file, to_file, start_line=diff.start_line
    )
    return _unended(lines)


def _unended(lines: Iterable[str]) -> Iterator[str]:
    """Diff lines without their ends, a line that had none followed by git's mark for it."""
    for line in lines:
        if line.endswith("\n"):
            yield line[:-1]
        else:
            yield line
            yield NO_NEWLINE.removesuffix("\n")


def _diff(diff: FileDiff) -> RenderableType:
    lines = diff_lines(diff)
    first = next(lines, None)
    if first is None:
        return Text(f"{_name(diff.path)}: no change", style="dim")
    return _highlighted(itertools.chain([first], lines), "diff", None)


def command_ending(view: TerminalResultCard) -> list[str]:
    """How a command ended (timed out, killed by a signal, its exit code), then how long it ran
    when that was measured, in words."""
    if view.timed_out:
        parts = ["timed out"]
    elif view.signal is not None:
        parts = [f"killed by {_name(view.signal)}"]
    elif view.exit_code is None:
        parts = ["no exit status"]
    else:
        parts = [f"exit {view.exit_code}"]
    if view.duration is not None and math.isfinite(view.duration) and view.duration >= 0:
        parts.append(_seconds(view.duration))
    return parts


def _seconds(duration: float) -> str:
    """A duration as people read it: `2.1 s`, `42 s`, `3 min 5 s`."""
    if duration < 10:
        return f"{duration:.1f} s"
    if duration < 60:
        return f"{duration:.0f} s"
    minutes, seconds = divmod(int(duration), 60)
    return f"{minutes} min {seconds} s"


def diff_text_body(diff: str) -> RenderableType:
    """A unified diff's text (e.g. an ask's preview) highlighted, long lines cut and a long diff
    elided as other bodies are; "no change" when it is empty."""
    if not diff:
        return Text("no change", style="dim")
    return _highlighted(_lines(diff), "diff", None)


def _ending(view: TerminalResultCard) -> Text:
    ok = view.exit_code == 0 and not view.timed_out and view.signal is None
    return Text(" · ".join(command_ending(view)), style="green" if ok else "bold red")


def _search(view: SearchResultCard) -> RenderableType:
    lines: list[str] = []
    if view.shape == "paths":
        lines.extend(f"• {_name(path)}" for path in view.paths)
    else:
        last: str | None = None
        for match in view.matches:
            if match.path != last:
                lines.append(_name(match.path))
                last = match.path
            lines.append(f"  {match.line:>5}: {_name(match.text)}")
    shown = len(view.paths) if view.shape == "paths" else len(view.matches)
    noun = "paths" if view.shape == "paths" else "matches"
    more = f" (showing {shown}; truncated)" if view.truncated else ""
    return Group(_shown("\n".join(lines)), Text(f"{view.total} {noun}{more}", style="dim"))


def _read(view: ReadResultCard) -> list[RenderableType]:
    parts: list[RenderableType] = []
    if view.content is not None:
        parts.append(_plain(view.content))
    texts = [line.text for line in view.lines]
    if texts:
        parts.append(_highlighted(texts, view.lang or "text", view.offset))
    last = view.offset + len(texts) - 1
    window = f"lines {view.offset}–{last}" if texts else f"nothing at line {view.offset}"
    more = f"; more from line {last + 1}" if texts and last < view.total_lines else ""
    parts.append(Text(f"{window} of {view.total_lines}{more}", style="dim"))
    return parts
