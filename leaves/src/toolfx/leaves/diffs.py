"""How the file leaves show a change: a unified diff for the model, the changed lines for a card."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from toolfx.core.presentation import DiffCallCard, DiffResultCard, FileDiff, FileLocation

__all__ = [
    "CONTEXT_LINES",
    "ChangedLines",
    "changed_lines",
    "context_diff",
    "diff_result_card",
    "pending_diff_card",
]

CONTEXT_LINES = 3
"""How many unchanged lines surround each change shown."""

_NO_NEWLINE = "\\ No newline at end of file\n"


@dataclass(frozen=True)
class ChangedLines:
    """The lines a change touched with their context: before (None: a new file) and after."""

    before: str | None
    after: str


def context_diff(path: str, old: str, new: str) -> str:
    """A unified diff of `old` to `new` with 3 lines of context, marking a missing last newline."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        f"a/{path}",
        f"b/{path}",
        n=CONTEXT_LINES,
    )
    return "".join(line if line.endswith("\n") else f"{line}\n{_NO_NEWLINE}" for line in lines)


def changed_lines(old: str | None, new: str) -> ChangedLines:
    """The span of lines from the first change to the last, with 3 lines of context around it.

    A new file is shown whole; a change that changes nothing shows two empty texts.
    """
    if old is None:
        return ChangedLines(None, new)
    before, after = old.splitlines(keepends=True), new.splitlines(keepends=True)
    changes = [
        op for op in difflib.SequenceMatcher(None, before, after).get_opcodes() if op[0] != "equal"
    ]
    if not changes:
        return ChangedLines("", "")
    (_, old_start, _, new_start, _), (_, _, old_end, _, new_end) = changes[0], changes[-1]
    lead = min(CONTEXT_LINES, old_start)
    trail = min(CONTEXT_LINES, len(before) - old_end)
    return ChangedLines(
        "".join(before[old_start - lead : old_end + trail]),
        "".join(after[new_start - lead : new_end + trail]),
    )


def pending_diff_card(title: str, path: str, old: str | None, new: str) -> DiffCallCard:
    """The pending card of a change known from the arguments alone (old: None for no before)."""
    return DiffCallCard(
        title=title, diffs=(FileDiff(path, old, new),), locations=(FileLocation(path),)
    )


def diff_result_card(title: str, path: str, change: ChangedLines) -> DiffResultCard:
    """The completed card of a change: its changed lines with their context."""
    return DiffResultCard(diffs=(FileDiff(path, change.before, change.after),), title=title)
