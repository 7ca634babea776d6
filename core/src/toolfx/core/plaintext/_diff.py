"""Line diffs of texts in bounded work: the edits that turn one list of lines into another, and
the unified diff that shows them.

The work is bounded whatever the texts: the lines the two sides share at the start and the end
are set aside in linear time, and only a middle of at most `MAX_DIFF_LINES` lines a side is
diffed line by line (Myers' algorithm, stopped after `MAX_EDIT_LINES` inserted or deleted
lines); any other middle is shown whole as one replaced block. Hunk headers carry the real line
numbers, as `git diff` writes them (counted from the file's line number of the texts' first line
when they are a part of a file); hunks are grouped as `difflib.unified_diff` groups them.

Texts whose lines are not repeated get git's hunks (tests compare them with `git diff`); where
lines repeat, git may place a change elsewhere among equal lines (it slides changes by its own
heuristics), so a hunk can start a line or more apart from git's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, Literal, final

__all__ = [
    "CONTEXT_LINES",
    "MAX_DIFF_LINES",
    "MAX_EDIT_LINES",
    "NO_NEWLINE",
    "Edit",
    "EditTag",
    "common_ends",
    "ended_lines",
    "line_edits",
    "unified_diff",
    "unified_text_diff",
]

CONTEXT_LINES: Final = 3
"""How many unchanged lines surround each change shown."""

MAX_DIFF_LINES: Final = 2000
"""The longest changed middle (lines a side) diffed line by line; a longer one is one block."""

MAX_EDIT_LINES: Final = 200
"""The most inserted plus deleted lines a line-by-line diff looks for before it gives up."""

NO_NEWLINE: Final = "\\ No newline at end of file\n"
"""The line a unified diff of texts writes after a last line that has no newline."""

_UNKNOWN_LINE: Final = "?"
"""What a hunk header writes for a line number when the texts' place in the file is not known."""

EditTag = Literal["equal", "replace"]
"""Whether an edit keeps its lines or replaces them."""


@final
@dataclass(frozen=True, slots=True)
class Edit:
    """A run of lines: `before[old_start:old_end]` kept (equal) or replaced by the new run."""

    tag: EditTag
    old_start: int
    old_end: int
    new_start: int
    new_end: int


def line_edits(before: Sequence[str], after: Sequence[str]) -> list[Edit]:
    """The runs, in order, that turn `before` into `after` (bounded work, see the module)."""
    n, m = len(before), len(after)
    head, tail = common_ends(before, after)
    middle = _middle(before[head : n - tail], after[head : m - tail])
    edits = [Edit("equal", 0, head, 0, head)] if head else []
    edits += [
        Edit(e.tag, e.old_start + head, e.old_end + head, e.new_start + head, e.new_end + head)
        for e in middle
    ]
    if tail:
        edits.append(Edit("equal", n - tail, n, m - tail, m))
    return edits


def common_ends(before: Sequence[str], after: Sequence[str]) -> tuple[int, int]:
    """How many lines the two sides share at the start, and then at the end (linear work)."""
    n, m = len(before), len(after)
    head = 0
    while head < min(n, m) and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < min(n, m) - head and before[n - 1 - tail] == after[m - 1 - tail]:
        tail += 1
    return head, tail


def _middle(before: Sequence[str], after: Sequence[str]) -> list[Edit]:
    n, m = len(before), len(after)
    if not n and not m:
        return []
    path = _myers(before, after) if n <= MAX_DIFF_LINES and m <= MAX_DIFF_LINES else None
    if path is None:
        return [Edit("replace", 0, n, 0, m)]
    edits: list[Edit] = []
    x = y = 0
    for x_end, y_end, diagonal in path:  # runs of moves, each diagonal (equal) or not
        tag: EditTag = "equal" if diagonal else "replace"
        if edits and edits[-1].tag == tag:
            last = edits.pop()
            x, y = last.old_start, last.new_start
        edits.append(Edit(tag, x, x_end, y, y_end))
        x, y = x_end, y_end
    return edits


def _myers(before: Sequence[str], after: Sequence[str]) -> list[tuple[int, int, bool]] | None:
    """The end points of the moves of a shortest edit (None past `MAX_EDIT_LINES` edits)."""
    n, m = len(before), len(after)
    furthest: dict[int, int] = {1: 0}
    history: list[dict[int, int]] = []
    for depth in range(MAX_EDIT_LINES + 1):
        history.append(dict(furthest))
        for k in range(-depth, depth + 1, 2):
            down = k == -depth or (k != depth and furthest[k - 1] < furthest[k + 1])
            x = furthest[k + 1] if down else furthest[k - 1] + 1
            y = x - k
            while x < n and y < m and before[x] == after[y]:
                x, y = x + 1, y + 1
            furthest[k] = x
            if x >= n and y >= m:
                return list(_moves(history, n, m))[::-1]
    return None


def _moves(history: list[dict[int, int]], x: int, y: int) -> Iterator[tuple[int, int, bool]]:
    """The moves back from (x, y): each (end x, end y, diagonal), the last move first."""
    for depth in range(len(history) - 1, -1, -1):
        furthest, k = history[depth], x - y
        down = k == -depth or (k != depth and furthest[k - 1] < furthest[k + 1])
        previous_k = k + 1 if down else k - 1
        start_x = furthest[previous_k]
        start_y = start_x - previous_k
        snake = min(x - start_x - (0 if down else 1), y - start_y - (1 if down else 0))
        if snake > 0:
            yield x, y, True
            x, y = x - snake, y - snake
        if depth > 0:
            yield x, y, False
            x, y = start_x, start_y


def unified_diff(
    before: Sequence[str],
    after: Sequence[str],
    from_file: str,
    to_file: str,
    *,
    lineterm: str = "\n",
    start_line: int | None = 1,
) -> Iterator[str]:
    """The lines of a unified diff of `before` to `after` with 3 lines of context, nothing when
    they are equal; the header lines end in `lineterm`, the others keep the lines' own ends.

    The hunks are numbered from `start_line`, the file's line number of both sides' first line
    (None: the place is not known, and the headers write `?` for line numbers)."""
    edits = line_edits(before, after)
    if all(edit.tag == "equal" for edit in edits):
        return
    yield f"--- {from_file}{lineterm}"
    yield f"+++ {to_file}{lineterm}"
    for hunk in _hunks(edits):
        first, last = hunk[0], hunk[-1]
        old_range = _range(first.old_start, last.old_end, start_line)
        new_range = _range(first.new_start, last.new_end, start_line)
        yield f"@@ -{old_range} +{new_range} @@{lineterm}"
        for edit in hunk:
            if edit.tag == "equal":
                yield from (" " + line for line in before[edit.old_start : edit.old_end])
            else:
                yield from ("-" + line for line in before[edit.old_start : edit.old_end])
                yield from ("+" + line for line in after[edit.new_start : edit.new_end])


def unified_text_diff(path: str, old: str, new: str) -> str:
    """A unified diff of the texts `old` to `new` of the file at `path` (empty when they are
    equal), marking a missing last newline as git does."""
    lines = unified_diff(ended_lines(old), ended_lines(new), f"a/{path}", f"b/{path}")
    return "".join(line if line.endswith("\n") else f"{line}\n{NO_NEWLINE}" for line in lines)


def ended_lines(text: str) -> list[str]:
    """The lines of a text with their ends, split at newlines only, as git splits them (a
    carriage return or form feed stays inside its line); the last may have no end."""
    *ended, last = text.split("\n")
    return [f"{line}\n" for line in ended] + ([last] if last else [])


def _hunks(edits: list[Edit]) -> Iterator[list[Edit]]:
    """The edits grouped into hunks as difflib groups them: an unchanged run longer than twice
    the context ends one hunk (keeping its first lines) and starts the next (its last lines)."""
    hunk: list[Edit] = []
    last = len(edits) - 1
    for index, edit in enumerate(edits):
        size = edit.old_end - edit.old_start
        if edit.tag != "equal":
            hunk.append(edit)
        elif not hunk:
            if index < last:
                hunk.append(_cut(edit, max(0, size - CONTEXT_LINES), size))
        elif index == last or size > 2 * CONTEXT_LINES:
            hunk.append(_cut(edit, 0, min(size, CONTEXT_LINES)))
            yield hunk
            hunk = [] if index == last else [_cut(edit, size - CONTEXT_LINES, size)]
        else:
            hunk.append(edit)
    if any(edit.tag != "equal" for edit in hunk):
        yield hunk


def _cut(edit: Edit, start: int, end: int) -> Edit:
    """The lines `start:end` of an equal run."""
    return Edit(
        "equal",
        edit.old_start + start,
        edit.old_start + end,
        edit.new_start + start,
        edit.new_start + end,
    )


def _range(start: int, end: int, start_line: int | None) -> str:
    """A hunk header's range of lines `start:end` as git writes it: the first line's number
    (the line before for an empty range) and the count; the first line is `start_line`."""
    length = end - start
    first = (
        _UNKNOWN_LINE if start_line is None else str(start + start_line - (1 if length == 0 else 0))
    )
    return first if length == 1 else f"{first},{length}"
