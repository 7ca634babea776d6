"""Lines as `str.splitlines` ends them, the one rule `read`, `grep` and `bash` number lines by.

A line ends at "\\n", "\\r\\n", "\\r", "\\x0b", "\\x0c", "\\x1c"-"\\x1e", U+0085, U+2028 or U+2029
(what `str.splitlines` breaks at); a text's last characters after its final break are a line
too. Over bytes the text is their UTF-8 decoding with invalid bytes replaced (as
`bytes.decode("utf-8", "replace")`): a break's bytes always start at a character's first byte,
so no invalid byte before them can take them in. Bytes read in pieces are counted as one: a
"\\r\\n" or a multi-byte break cut between two pieces counts once. Linear in the bytes.
"""

from __future__ import annotations

import re
from collections import deque
from itertools import islice
from typing import Final, final

from toolfx.core.plaintext._cut import count_bytes

__all__ = ["LINE_BREAKS", "LineCount", "breaks_as_newlines", "head_lines", "tail_lines"]

LINE_BREAKS: Final = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character `str.splitlines` ends a line at (and "\\r\\n" is one break)."""

_TEXT_BREAK: Final = re.compile(f"\r\n|[{re.escape(LINE_BREAKS)}]")
"""One line break in a text."""

_BREAKS: Final = re.compile(
    b"\r\n?|" + b"|".join(re.escape(c.encode()) for c in LINE_BREAKS if c not in "\r\n")
)
"""Every line break but `\\n`, in UTF-8 (linear: literal alternatives)."""

_BREAK_STARTS: Final = tuple(sorted({c.encode()[:1] for c in LINE_BREAKS if c != "\n"}))
"""The bytes a break other than `\\n` starts with (none in a piece: only `\\n` ends lines; each
looked for alone, as `bytes.find` does it fast)."""

_OPEN_ENDS: Final = (b"\xe2\x80", b"\r", b"\xc2", b"\xe2")
"""Ends of a piece that may be the start of a break the next piece finishes (longest first)."""


def breaks_as_newlines(data: bytes) -> bytes:
    """`data` (UTF-8) with every line break `str.splitlines` knows written as `\\n`."""
    return _BREAKS.sub(b"\n", data) if any(start in data for start in _BREAK_STARTS) else data


@final
class LineCount:
    """Counts the lines of bytes given in pieces, as `str.splitlines` counts their decoding."""

    __slots__ = ("_breaks", "_held", "_open")

    def __init__(self) -> None:
        self._breaks = 0
        self._open = False  # whether bytes follow the last break counted
        self._held = b""  # the end of the last piece, when it may begin a break

    def add(self, data: bytes) -> bytes:
        """Count `data`; the bytes counted now (those held back from before, without those held
        back for the next piece), every break written as `\\n`."""
        data = self._held + data
        held = next((end for end in _OPEN_ENDS if data.endswith(end)), b"")
        self._held = held
        counted = breaks_as_newlines(data[: len(data) - len(held)])
        if counted:
            self._breaks += counted.count(b"\n")
            self._open = not counted.endswith(b"\n")
        return counted

    @property
    def ended(self) -> int:
        """The lines ended in what `add` returned so far (a last "\\r" is held back: it may be
        the start of a "\\r\\n")."""
        return self._breaks

    @property
    def lines(self) -> int:
        """The lines so far (a last one not ended counted too)."""
        if self._held == b"\r":
            return self._breaks + 1
        return self._breaks + (1 if self._held or self._open else 0)


def head_lines(text: str, lines: int, size: int) -> str:
    """The longest prefix of `text` within `lines` and `size` UTF-8 bytes: whole lines, unless
    the first line alone is over `size` (then cut inside it, at a character boundary)."""
    if lines <= 0 or size <= 0:
        return ""
    stop = min(len(text), size + 1)  # no prefix within `size` bytes is longer
    ends = [_whole(text, m.end()) for m in islice(_TEXT_BREAK.finditer(text, 0, stop), lines)]
    part = text[: ends[-1]] if len(ends) == lines else text[:stop]
    if count_bytes(part) <= size:
        return part
    data = part.encode("utf-8", "surrogatepass")
    cut = size
    while cut > 0 and data[cut] & 0xC0 == 0x80:  # back to the first byte of a character
        cut -= 1
    prefix = data[:cut].decode("utf-8", "surrogatepass")
    whole = [end for end in ends if end <= len(prefix)]
    return text[: whole[-1]] if whole else prefix


def tail_lines(text: str, lines: int, size: int) -> str:
    """The longest suffix of `text` within `lines` and `size` UTF-8 bytes: whole lines, unless
    the last line alone is over `size` (then cut inside it, at a character boundary)."""
    if lines <= 0 or size <= 0:
        return ""
    start = max(len(text) - size - 1, 0)  # no suffix within `size` bytes starts before
    starts = deque(
        (m.end() for m in _TEXT_BREAK.finditer(text, start) if m.end() < len(text)), lines
    )
    part = text[starts[0] :] if len(starts) == lines else text[start:]
    if count_bytes(part) <= size:
        return part
    data = part.encode("utf-8", "surrogatepass")
    cut = len(data) - size
    while cut < len(data) and data[cut] & 0xC0 == 0x80:  # on to the first byte of a character
        cut += 1
    at = len(text) - len(data[cut:].decode("utf-8", "surrogatepass"))
    whole = [begin for begin in starts if begin >= at]
    return text[whole[0] :] if whole else text[at:]


def _whole(text: str, end: int) -> int:
    """A line end at `end`, moved past the "\\n" of a "\\r\\n" a search stopped inside."""
    return end + 1 if text[end - 1 : end + 1] == "\r\n" else end
