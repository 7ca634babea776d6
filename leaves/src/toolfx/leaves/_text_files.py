"""What the file leaves share: text decoding with binary detection and file errors as failures."""

from __future__ import annotations

from toolfx.core.runtime import FileError, FileErrorKind
from toolfx.core.tools import ErrorCode, ToolFailure

__all__ = ["BINARY_SNIFF_BYTES", "LINE_CUT_MARK", "cut_line", "decode_text", "file_failure"]

BINARY_SNIFF_BYTES = 8192
"""How much of a file is searched for a NUL byte, the sign of a binary file."""

LINE_CUT_MARK = " … [line cut]"
"""What ends a line shown cut to the line limit."""


def cut_line(line: str, max_chars: int) -> str:
    """`line` as shown: its first `max_chars` characters and the cut mark when it is longer."""
    return line if len(line) <= max_chars else line[:max_chars] + LINE_CUT_MARK


def decode_text(data: bytes) -> str | None:
    """The UTF-8 text of `data`, or None for a binary file (a NUL byte or invalid UTF-8)."""
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


_REASONS = {
    FileErrorKind.NOT_FOUND: "does not exist",
    FileErrorKind.NOT_A_DIRECTORY: "has a file where a directory is expected",
    FileErrorKind.IS_A_DIRECTORY: "is a directory",
    FileErrorKind.PERMISSION: "cannot be accessed (permission denied)",
    FileErrorKind.OUTSIDE: (
        "resolves outside the folder it is confined to, through a symlink or `..`; "
        "nothing was read or written"
    ),
    FileErrorKind.LOOP: "is a symlink loop (more than 40 symlinks to follow); nothing was done",
    FileErrorKind.CHANGED: (
        "changed while in use: a symlink appeared where it was checked to have none; "
        "nothing was read or written"
    ),
}


def file_failure(error: FileError, shown: str) -> ToolFailure:
    """A file error as the typed failure the model reads, naming the path as it was shown."""
    reason = _REASONS.get(error.kind, f"cannot be used: {error.reason}")
    if error.kind is FileErrorKind.INVALID_PATH:
        reason = f"is not a valid path: it {error.reason}"
    return ToolFailure.of(ErrorCode.TOOL_ERROR, f"{shown} {reason}", {"kind": str(error.kind)})
