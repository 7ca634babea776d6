"""What the diff tests share: applying a unified diff's hunks back, checking every line."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from toolfx.core.plaintext import NO_NEWLINE

__all__ = ["apply_diff", "apply_hunks"]

_HEADER: Final = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_hunks(lines: Sequence[str], body: Sequence[str]) -> list[str]:
    """`lines` with the hunks of a unified diff (its lines after the two file headers) applied,
    checking every context and removed line."""
    out: list[str] = []
    at = 0  # the next line of `lines` not yet copied
    i = 0
    while i < len(body):
        header = _HEADER.match(body[i])
        assert header is not None, body[i]
        start, length = int(header[1]), int(header[2] or 1)
        first = start - 1 if length else start  # git numbers an empty range by the line before
        out.extend(lines[at:first])
        at = first
        i += 1
        while i < len(body) and not body[i].startswith("@@"):
            mark, text = body[i][0], body[i][1:]
            if mark in " -":
                assert lines[at] == text, (lines[at], text)
                at += 1
            if mark in " +":
                out.append(text)
            i += 1
    return out + list(lines[at:])


def apply_diff(old: str, diff: str) -> str:
    """`old` with a unified diff of texts applied (a missing last newline marked as git does)."""
    body: list[str] = []
    for line in diff.splitlines(keepends=True)[2:]:
        if line == NO_NEWLINE:
            body[-1] = body[-1].removesuffix("\n")
        else:
            body.append(line)
    return "".join(apply_hunks(old.splitlines(keepends=True), body))
