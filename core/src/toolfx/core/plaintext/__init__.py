"""Text helpers the pipeline and leaves share: cutting to a budget, line diffs."""

from toolfx.core.plaintext._cut import count_bytes, count_lines, cut_with_note, head, tail
from toolfx.core.plaintext._diff import (
    CONTEXT_LINES,
    MAX_DIFF_LINES,
    MAX_EDIT_LINES,
    NO_NEWLINE,
    Edit,
    EditTag,
    common_ends,
    ended_lines,
    line_edits,
    unified_diff,
    unified_text_diff,
)

__all__ = [
    "CONTEXT_LINES",
    "MAX_DIFF_LINES",
    "MAX_EDIT_LINES",
    "NO_NEWLINE",
    "Edit",
    "EditTag",
    "common_ends",
    "count_bytes",
    "count_lines",
    "cut_with_note",
    "ended_lines",
    "head",
    "line_edits",
    "tail",
    "unified_diff",
    "unified_text_diff",
]
