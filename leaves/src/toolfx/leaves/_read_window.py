"""Reading a window of a text file's lines in chunks: only the bytes up to the window (and a
bounded look past it to count the rest) are read, binary detected from the first bytes."""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Final, final

from toolfx.core.runtime import FileSystem
from toolfx.leaves._text_files import BINARY_SNIFF_BYTES, cut_line
from toolfx.leaves.workspace import ResolvedPath, WorkspaceLimits

__all__ = ["CHUNK_BYTES", "COUNT_AHEAD_BYTES", "Window", "read_window"]

CHUNK_BYTES: Final = 64 * 1024
"""How many bytes one read asks for."""

COUNT_AHEAD_BYTES: Final = 1024 * 1024
"""How far past the window lines are still counted (for the total) before reading stops."""


@final
@dataclass(frozen=True, slots=True)
class Window:
    """The lines shown (number, text as cut), the line count (None: not read to the end), and
    whether a line follows the window."""

    lines: tuple[tuple[int, str], ...]
    total_lines: int | None
    more: bool


@final
class _Lines:
    """The window being filled, line by line, within the line and byte limits."""

    __slots__ = ("count", "first", "full", "kept", "last", "limits", "more", "size")

    def __init__(self, offset: int, limit: int, limits: WorkspaceLimits) -> None:
        self.first, self.last, self.limits = offset, offset + limit - 1, limits
        self.kept: list[tuple[int, str]] = []
        self.count = self.size = 0
        self.full = self.more = False

    def wanted(self) -> bool:
        """Whether the line being read now may be shown (its text is worth keeping)."""
        return not self.full and self.first <= self.count + 1 <= self.last

    def end_line(self, text: str) -> None:
        """One more line ended; `text` is what was kept of it."""
        self.count += 1
        if self.full or self.count < self.first:
            self.more = self.more or self.full
            return
        shown = cut_line(text, self.limits.max_line_chars)
        self.size += len(shown.encode("utf-8", "surrogatepass")) + 8
        if self.kept and self.size > self.limits.max_bytes:
            self.full = self.more = True
            return
        self.kept.append((self.count, shown))
        self.full = self.count >= self.last


async def read_window(
    files: FileSystem, where: ResolvedPath, offset: int, limit: int, limits: WorkspaceLimits
) -> Window | None:
    """Lines `offset`.. (at most `limit`) of the file at `where`; None for a binary file."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    lines = _Lines(offset, limit, limits)
    partial: list[str] = []  # the current line's text kept so far (at most the line limit)
    kept_chars = 0
    open_line = False  # whether characters follow the last line break
    carry = ""  # a final `\r` held back: the next chunk may start with its `\n`
    position = 0
    full_at: int | None = None
    while True:
        chunk = await files.read_bytes(
            where.path, within=where.within, offset=position, limit=CHUNK_BYTES, resolved=True
        )
        if position == 0 and b"\0" in chunk[:BINARY_SNIFF_BYTES]:
            return None
        position += len(chunk)
        try:
            text = carry + decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError:
            return None
        carry = "\r" if chunk and text.endswith("\r") else ""
        for piece in (text[:-1] if carry else text).splitlines(keepends=True):
            body = piece.splitlines()[0]
            if body and lines.wanted() and kept_chars <= limits.max_line_chars:
                partial.append(body[: limits.max_line_chars + 1 - kept_chars])
                kept_chars += len(partial[-1])
            open_line = True
            if len(body) < len(piece):  # the piece ends with a line break
                lines.end_line("".join(partial))
                partial, kept_chars, open_line = [], 0, False
        if not chunk:
            if open_line:
                lines.end_line("".join(partial))
            return Window(tuple(lines.kept), lines.count, lines.more)
        if lines.full and full_at is None:
            full_at = position
        if full_at is not None and position - full_at >= COUNT_AHEAD_BYTES:
            return Window(tuple(lines.kept), None, True)
