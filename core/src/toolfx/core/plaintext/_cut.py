"""Cutting text to a line and a UTF-8 byte limit: whole lines where it can, never half a character.

A line is what ends with "\\n" (or the text's last characters after the final "\\n"; lines as
`read` numbers them are `_lines`'); bytes are UTF-8, with lone surrogates counted as three bytes
(as `surrogatepass` writes them). Pure, and linear in the text's length.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["count_bytes", "count_lines", "cut_with_note", "head"]


def count_lines(text: str) -> int:
    """How many lines `text` has (an empty text has none)."""
    breaks = text.count("\n")
    return breaks if not text or text[-1] == "\n" else breaks + 1


def count_bytes(text: str) -> int:
    """How many UTF-8 bytes `text` takes."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def head(text: str, lines: int, size: int) -> str:
    """The longest prefix of `text` within `lines` and `size` bytes: whole lines, unless the first
    line alone is over `size` (then cut inside it, at a character boundary)."""
    if lines <= 0 or size <= 0:
        return ""
    part = text
    if text.count("\n") >= lines:
        end = -1
        for _ in range(lines):
            end = text.find("\n", end + 1)
        part = text[: end + 1]
    if count_bytes(part) <= size:
        return part
    data = part.encode("utf-8", "surrogatepass")
    cut = size
    while cut > 0 and data[cut] & 0xC0 == 0x80:  # back to the first byte of a character
        cut -= 1
    line_end = data.rfind(b"\n", 0, cut)
    if line_end >= 0:
        cut = line_end + 1
    return data[:cut].decode("utf-8", "surrogatepass")


def cut_with_note(text: str, lines: int, size: int, note: Callable[[str], str]) -> str:
    """The head of `text` followed by `note(head)`, within `lines` and `size` bytes together.

    `note` should start with a line break; it must be no longer, and have no more lines, for a
    shorter head (it may count what the head shows): room is kept for the note of the whole
    `text`. When even that note is over the limits, the note of nothing shown is cut to them.
    """
    widest = note(text)
    room_lines = lines - widest.count("\n") - 1
    room_bytes = size - count_bytes(widest)
    if room_lines < 0 or room_bytes < 0:
        return head(note("").removeprefix("\n"), lines, size)
    shown = head(text, room_lines, room_bytes)
    return shown + note(shown)
