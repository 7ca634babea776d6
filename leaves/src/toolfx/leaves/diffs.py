"""How the file leaves show a change: a unified diff for the model, the changed lines for a card.

Both are bounded in time whatever the texts: the lines the two sides share at the start and the
end are set aside in linear time, and only a middle of at most `MAX_DIFF_LINES` lines a side is
diffed line by line (Myers' algorithm, stopped after `MAX_EDIT_LINES` inserted or deleted
lines); any other middle is shown whole as one replaced block. Hunk headers carry the real line
numbers, as `git diff` writes them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from toolfx.core.presentation import DiffCallCard, DiffResultCard, FileDiff, FileLocation

__all__ = [
    "CONTEXT_LINES",
    "MAX_DIFF_LINES",
    "MAX_EDIT_LINES",
    "ChangedLines",
    "Edit",
    "changed_lines",
    "context_diff",
    "diff_result_card",
    "line_edits",
    "pending_diff_card",
]

CONTEXT_LINES = 3
"""How many unchanged lines surround each change shown."""

MAX_DIFF_LINES: Final = 2000
"""The longest changed middle (lines a side) diffed line by line; a longer one is one block."""

MAX_EDIT_LINES: Final = 200
"""The most inserted plus deleted lines a line-by-line diff looks for before it gives up."""

_NO_NEWLINE = "\\ No newline at end of file\n"

Tag = Literal["equal", "replace"]


@dataclass(frozen=True, slots=True)
class Edit:
    """A run of lines: `before[old_start:old_end]` kept (equal) or replaced by the new run."""

    tag: Tag
    old_start: int
    old_end: int
    new_start: int
    new_end: int


@dataclass(frozen=True)
class ChangedLines:
    """The lines a change touched with their context: before (None: a new file) and after."""

    before: str | None
    after: str


def line_edits(before: Sequence[str], after: Sequence[str]) -> list[Edit]:
    """The runs, in order, that turn `before` into `after` (linear-bounded work, see above)."""
    n, m = len(before), len(after)
    head, tail = _common_ends(before, after)
    middle = _middle(before[head : n - tail], after[head : m - tail])
    edits = [Edit("equal", 0, head, 0, head)] if head else []
    edits += [
        Edit(e.tag, e.old_start + head, e.old_end + head, e.new_start + head, e.new_end + head)
        for e in middle
    ]
    if tail:
        edits.append(Edit("equal", n - tail, n, m - tail, m))
    return edits


def _common_ends(before: Sequence[str], after: Sequence[str]) -> tuple[int, int]:
    """How many lines the two sides share at the start, and then at the end."""
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
        tag: Tag = "equal" if diagonal else "replace"
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


def context_diff(path: str, old: str, new: str) -> str:
    """A unified diff of `old` to `new` with 3 lines of context, marking a missing last newline."""
    before, after = old.splitlines(keepends=True), new.splitlines(keepends=True)
    edits = line_edits(before, after)
    if all(edit.tag == "equal" for edit in edits):
        return ""
    out = [f"--- a/{path}\n", f"+++ b/{path}\n"]
    for hunk in _hunks(edits):
        first, last = hunk[0], hunk[-1]
        old_range = _range(first.old_start, last.old_end)
        new_range = _range(first.new_start, last.new_end)
        out.append(f"@@ -{old_range} +{new_range} @@\n")
        for edit in hunk:
            if edit.tag == "equal":
                out.extend(" " + line for line in before[edit.old_start : edit.old_end])
            else:
                out.extend("-" + line for line in before[edit.old_start : edit.old_end])
                out.extend("+" + line for line in after[edit.new_start : edit.new_end])
    return "".join(line if line.endswith("\n") else f"{line}\n{_NO_NEWLINE}" for line in out)


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


def _range(start: int, end: int) -> str:
    """A hunk header's range as git writes it: the first line (from 1) and the count."""
    length = end - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def changed_lines(old: str | None, new: str) -> ChangedLines:
    """The span of lines from the first change to the last, with 3 lines of context around it.

    A new file is shown whole; a change that changes nothing shows two empty texts.
    """
    if old is None:
        return ChangedLines(None, new)
    before, after = old.splitlines(keepends=True), new.splitlines(keepends=True)
    n, m = len(before), len(after)
    head, tail = _common_ends(before, after)
    if head == n == m:
        return ChangedLines("", "")
    lead = min(CONTEXT_LINES, head)
    trail = min(CONTEXT_LINES, tail)
    return ChangedLines(
        "".join(before[head - lead : n - tail + trail]),
        "".join(after[head - lead : m - tail + trail]),
    )


def pending_diff_card(title: str, path: str, old: str | None, new: str) -> DiffCallCard:
    """The pending card of a change known from the arguments alone (old: None for no before)."""
    return DiffCallCard(
        title=title, diffs=(FileDiff(path, old, new),), locations=(FileLocation(path),)
    )


def diff_result_card(title: str, path: str, change: ChangedLines) -> DiffResultCard:
    """The completed card of a change: its changed lines with their context."""
    return DiffResultCard(diffs=(FileDiff(path, change.before, change.after),), title=title)
