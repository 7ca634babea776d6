"""Matching lines in a file's bytes, a slice at a time: plain functions a runtime runs off the loop.

The regex runs once over a whole slice (RE2 with `single_line`: no match spans a line), so the
cost is linear in the slice plus a small cost per matching line. Lines end where
`str.splitlines` ends them, so line numbers agree with `read`'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final, final

from toolfx.leaves._regexes import LinearRegex

__all__ = ["SLICE_BYTES", "LineHit", "SliceScan", "line_slices", "scan_slice"]

SLICE_BYTES: Final = 128 * 1024
"""How many bytes (whole lines, at least one) a slice holds: the work between two signal looks."""


@final
@dataclass(frozen=True, slots=True)
class LineHit:
    """A matching line: its number (from 1) and its bytes, without the line break."""

    number: int
    text: bytes


@final
@dataclass(frozen=True, slots=True)
class SliceScan:
    """What one slice held: the first matching lines (as many as asked) and how many matched."""

    hits: tuple[LineHit, ...]
    matched: int


def line_slices(data: bytes, size: int = SLICE_BYTES) -> Iterator[tuple[int, int, int]]:
    """Consecutive slices of whole lines of about `size` bytes: (start, end, first line number)."""
    start, line = 0, 1
    while start < len(data):
        newline = data.find(b"\n", min(start + size, len(data)) - 1)
        end = len(data) if newline < 0 else newline + 1
        yield start, end, line
        line += data.count(b"\n", start, end)
        start = end


def scan_slice(
    regex: LinearRegex, data: bytes, bounds: tuple[int, int, int], keep: int, limit: int
) -> SliceScan:
    """The lines of `data[start:end]` `regex` matches: the first `keep` kept, at most `limit`."""
    start, end, line = bounds
    hits: list[LineHit] = []
    matched, position, counted_to = 0, start, start
    while matched < limit and position < end:
        span = regex.search(data, position, end)
        if span is None or (span[0] == end and data[end - 1 : end] == b"\n"):
            break  # a match at the end of a slice ending a line is on the next line
        line += data.count(b"\n", counted_to, span[0])
        line_start = data.rfind(b"\n", start, span[0]) + 1 or start
        newline = data.find(b"\n", span[0], end)
        line_end = end if newline < 0 else newline
        matched += 1
        if len(hits) < keep:
            hits.append(LineHit(line, data[line_start:line_end]))
        counted_to = line_end
        position = line_end + 1
    return SliceScan(tuple(hits), matched)
