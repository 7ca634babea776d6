"""Text helpers the pipeline and leaves share: cutting to a budget, counting lines, diffs."""

from toolfx.core.plaintext._cut import count_bytes, count_lines, cut_with_note, head
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
from toolfx.core.plaintext._lines import (
    LINE_BREAKS,
    LineCount,
    breaks_as_newlines,
    head_lines,
    tail_lines,
)

__all__ = [
    "CONTEXT_LINES",
    "LINE_BREAKS",
    "MAX_DIFF_LINES",
    "MAX_EDIT_LINES",
    "NO_NEWLINE",
    "Edit",
    "EditTag",
    "LineCount",
    "breaks_as_newlines",
    "common_ends",
    "count_bytes",
    "count_lines",
    "cut_with_note",
    "ended_lines",
    "head",
    "head_lines",
    "line_edits",
    "tail_lines",
    "unified_diff",
    "unified_text_diff",
]
