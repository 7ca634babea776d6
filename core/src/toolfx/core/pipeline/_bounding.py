"""Output bounding: the text a result shows the model is cut to its limits, the whole kept.

Applied by the pipeline to every call's final content, and by leaves to the part of their
output they bound themselves. Text blocks count and are cut; other blocks (images, ...) pass
whole and do not count: cutting one would corrupt it, and a provider limits them on its own.
Over the limits, the text blocks become one (their text joined, a line break between two when
the first does not end with one), in the place of the first: its head and a note saying where
the runtime's spill store keeps the whole text and how to read it. A spill that fails is a
typed OUTPUT_NOT_KEPT failure: the tool ran, its output could not be kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, final

from toolfx.core.json import snapshot_json
from toolfx.core.plaintext import count_bytes, count_lines, cut_with_note
from toolfx.core.runtime import SpillError
from toolfx.core.tools import (
    ErrorCode,
    TextBlock,
    ToolErrorInfo,
    ToolFailure,
    from_failure,
)

if TYPE_CHECKING:
    from toolfx.core.registry import Registration
    from toolfx.core.runtime import Runtime, SpillLocation
    from toolfx.core.tools import (
        ContentBlock,
        OutputLimits,
        ToolExecution,
        ToolExecutionResult,
    )

__all__ = [
    "BoundedText",
    "bound_result",
    "bound_text",
    "content_within",
    "not_kept",
    "over_limits",
]


@final
@dataclass(frozen=True, slots=True)
class BoundedText:
    """The text the model sees, whether it was cut, the whole's totals and where it is kept."""

    text: str
    truncated: bool
    total_lines: int
    total_bytes: int
    spilled: SpillLocation | None = None


def over_limits(
    content: Sequence[ContentBlock], registration: Registration | None, default: OutputLimits
) -> OutputLimits | None:
    """The limits the text of `content` is over, or None (no copy when it is clearly within).

    The limits are the tool's own, else `default` (its Location's).
    """
    limits = default if registration is None else registration.definition.output_limits or default
    chars = 0  # one pass, no copy: `clear_chars` bounds it
    for block in content:
        if type(block) is TextBlock and type(block.text) is str:
            chars += len(block.text) + 1  # and the line break that may join it to the next
    if chars <= limits.clear_chars:
        return None
    return None if content_within(content, limits) else limits


def content_within(content: Sequence[ContentBlock], limits: OutputLimits) -> bool:
    """Whether the text of `content` (text blocks joined, see the module) is within `limits`."""
    whole = _joined(content)
    return count_bytes(whole) <= limits.bytes and count_lines(whole) <= limits.lines


async def bound_text(
    runtime: Runtime, call_id: str, tool: str, text: str, limits: OutputLimits
) -> BoundedText:
    """`text` within `limits`; when cut, the whole is kept in `runtime.spills` (or `SpillError`)."""
    lines, size = count_lines(text), count_bytes(text)
    if lines <= limits.lines and size <= limits.bytes:
        return BoundedText(text, False, lines, size)
    where = await runtime.spills.keep(call_id, tool, text)

    def note(shown: str) -> str:
        return (
            f"\n[output cut: showing {count_lines(shown)} of {lines} lines "
            f"({count_bytes(shown)} of {size} bytes). The whole output is saved at {where.path}: "
            "read it with `read` (offset and limit) or search it with `grep`.]"
        )

    return BoundedText(
        cut_with_note(text, limits.lines, limits.bytes, note), True, lines, size, where
    )


def not_kept(tool: str, lines: int, size: int, limits: OutputLimits, reason: str) -> ToolFailure:
    """The failure when `tool` ran but its output (`lines` lines, `size` bytes), over `limits`,
    could not be kept whole."""
    message = (
        f"`{tool}` ran, but its output ({lines} lines, {size} bytes) is over the limits "
        f"({limits.lines} lines, {limits.bytes} bytes) and could not be kept whole: {reason}"
    )
    details = snapshot_json({"lines": lines, "bytes": size, "reason": reason}).value_or(None)
    return ToolFailure(message, ToolErrorInfo(ErrorCode.OUTPUT_NOT_KEPT, details))


async def bound_result(
    runtime: Runtime, limits: OutputLimits, execution: ToolExecution, result: ToolExecutionResult
) -> ToolExecutionResult:
    """`result` with its text cut to `limits` and the whole spilled (see the module)."""
    whole = _joined(result.content)
    try:
        bounded = await bound_text(runtime, execution.call_id, execution.name, whole, limits)
    except SpillError as error:
        return from_failure(not_kept(execution.name, *_size(whole), limits, error.reason))
    except Exception as error:  # a spill store's defect: reported; still the tool's failure
        runtime.report(error, f"the spill store keeping the output of `{execution.name}`")
        reason = f"{type(error).__name__}: {error}"
        return from_failure(not_kept(execution.name, *_size(whole), limits, reason))
    if not bounded.truncated:
        return result
    content: list[ContentBlock] = []
    placed = False
    for block in result.content:
        if not _counted(block):
            content.append(block)
        elif not placed:  # the cut text takes the place of the first text block
            content.append(TextBlock(bounded.text))
            placed = True
    return dataclasses.replace(result, content=tuple(content))


def _size(text: str) -> tuple[int, int]:
    """The lines and UTF-8 bytes of `text`."""
    return count_lines(text), count_bytes(text)


def _counted(block: ContentBlock) -> bool:
    return type(block) is TextBlock and type(block.text) is str


def _joined(content: Sequence[ContentBlock]) -> str:
    """The text of the text blocks, a line break between two when the first lacks one."""
    texts = [b.text for b in content if isinstance(b, TextBlock) and type(b.text) is str]
    if len(texts) == 1:
        return texts[0]
    parts: list[str] = []
    for text in texts:
        if parts and parts[-1] and parts[-1][-1] != "\n":
            parts.append("\n")
        parts.append(text)
    return "".join(parts)
