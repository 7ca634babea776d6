"""How the file leaves show a change on a card: the changed lines with their context.

The diff for the model is core's bounded `unified_text_diff` (`toolfx.core.plaintext`).
"""

from __future__ import annotations

from dataclasses import dataclass

from toolfx.core.plaintext import CONTEXT_LINES, common_ends
from toolfx.core.tools import DiffCallCard, DiffResultCard, FileDiff, FileLocation

__all__ = ["ChangedLines", "changed_lines", "diff_result_card", "pending_diff_card"]


@dataclass(frozen=True)
class ChangedLines:
    """The lines a change touched with their context: before (None: a new file) and after."""

    before: str | None
    after: str


def changed_lines(old: str | None, new: str) -> ChangedLines:
    """The span of lines from the first change to the last, with 3 lines of context around it.

    A new file is shown whole; a change that changes nothing shows two empty texts.
    """
    if old is None:
        return ChangedLines(None, new)
    before, after = old.splitlines(keepends=True), new.splitlines(keepends=True)
    n, m = len(before), len(after)
    head, tail = common_ends(before, after)
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
