"""Bounded output: a text over the limits is cut, saved whole, and the model told where."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import final

from toolfx.core import FileError, FileErrorKind, ToolRunContext
from toolfx.leaves.workspace import OutputLimits, Workspace

__all__ = ["BoundedText", "bound_text", "cut_text"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


@final
@dataclass(frozen=True, slots=True)
class BoundedText:
    """The text the model sees, and what was cut: totals and where the whole text is."""

    text: str
    truncated: bool
    total_lines: int
    total_bytes: int
    saved_to: str | None = None


def cut_text(text: str, limits: OutputLimits) -> tuple[str, int, int]:
    """The longest prefix of whole lines within both limits, with the totals (lines, bytes)."""
    lines = text.splitlines(keepends=True)
    total_bytes = len(text.encode("utf-8", "surrogatepass"))
    if len(lines) <= limits.max_lines and total_bytes <= limits.max_bytes:
        return text, len(lines), total_bytes
    kept: list[str] = []
    size = 0
    for line in lines[: limits.max_lines]:
        size += len(line.encode("utf-8", "surrogatepass"))
        if size > limits.max_bytes:
            break
        kept.append(line)
    return "".join(kept), len(lines), total_bytes


async def bound_text(ctx: ToolRunContext, workspace: Workspace, text: str) -> BoundedText:
    """`text` within the workspace's limits; when cut, the whole is saved in the state folder."""
    shown, total_lines, total_bytes = cut_text(text, workspace.limits)
    if shown is text:
        return BoundedText(text, False, total_lines, total_bytes)
    saved = await _save(ctx, workspace.state_dir, text)
    shown_lines = len(shown.splitlines())
    cut = (
        f"\n[output cut: showing {shown_lines} of {total_lines} lines "
        f"({len(shown.encode('utf-8', 'surrogatepass'))} of {total_bytes} bytes). "
    )
    if saved is None:
        note = cut + "The whole output was not saved.]"
    else:
        note = cut + (
            f"The whole output is saved at {saved}: read it with `read` (offset and limit) "
            "or search it with `grep`.]"
        )
    return BoundedText(shown + note, True, total_lines, total_bytes, saved)


async def _save(ctx: ToolRunContext, state_dir: str | None, text: str) -> str | None:
    """Where `text` was saved in the state folder (created when missing); None if it was not."""
    if state_dir is None:
        return None
    name = _UNSAFE.sub("_", ctx.call_id)[:80] or "output"
    saved = posixpath.join(state_dir, "outputs", f"{name}.txt")
    data = text.encode("utf-8", "surrogatepass")
    within = state_dir
    while True:  # a missing state folder is made below its nearest existing ancestor
        try:
            await ctx.runtime.files.write_bytes(saved, data, within=within)
        except FileError as error:
            if error.kind is not FileErrorKind.NOT_FOUND or within == "/":
                return None
            within = posixpath.dirname(within)
            continue
        return saved
