"""How the file leaves show a change on a card: the changed lines with their context.

The diff for the model is core's bounded `unified_text_diff` (`toolfx.core.plaintext`).
"""

from __future__ import annotations

from dataclasses import dataclass

from toolfx.core.plaintext import CONTEXT_LINES, common_ends, ended_lines
from toolfx.core.tools import DiffCallCard, DiffResultCard, FileDiff, FileLocation

__all__ = ["ChangedLines", "changed_lines", "diff_result_card", "pending_diff_card"]


@dataclass(frozen=True)
class ChangedLines:
    """The lines a change touched with their context: before (None: a new file) and after, and
    the file's line number of their first lines."""

    before: str | None
    after: str
    start_line: int = 1


def changed_lines(old: str | None, new: str) -> ChangedLines:
    """The span of lines from the first change to the last, with 3 lines of context around it,
    and where it starts in the file (its hunk headers are then the whole file's).

    A new file is shown whole; a change that changes nothing shows two empty texts.
    """
    if old is None:
        return ChangedLines(None, new)
    before, after = ended_lines(old), ended_lines(new)
    n, m = len(before), len(after)
    head, tail = common_ends(before, after)
    if head == n == m:
        return ChangedLines("", "")
    lead = min(CONTEXT_LINES, head)
    trail = min(CONTEXT_LINES, tail)
    return ChangedLines(
        "".join(before[head - lead : n - tail + trail]),
        "".join(after[head - lead : m - tail + trail]),
        head - lead + 1,
    )


def pending_diff_card(
    title: str, path: str, old: str | None, new: str, start_line: int | None
) -> DiffCallCard:
    """The pending card of a change known from the arguments alone (old: None for no before;
    start_line: None when the texts are snippets whose place is found when the call runs)."""
    return DiffCallCard(
        title=title,
        diffs=(FileDiff(path, old, new, start_line),),
        locations=(FileLocation(path),),
    )


def diff_result_card(title: str, path: str, change: ChangedLines) -> DiffResultCard:
    """The completed card of a change: its changed lines with their context."""
    return DiffResultCard(
        diffs=(FileDiff(path, change.before, change.after, change.start_line),), title=title
    )
