"""Properties of output bounding: for random text (line breaks, multi-byte characters, lone
surrogates), random block splits and random limits, what the model sees is within the limits and
a prefix of the whole, and the spill store holds exactly the whole text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from hypothesis import given
from hypothesis import strategies as st

from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.plaintext import count_bytes, count_lines
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import (
    ContentBlock,
    Output,
    OutputLimits,
    TextBlock,
    ToolExecutionResult,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters.testing import DeterministicInterpreter, MemorySpills

SAVED = "The whole output is saved at "

texts = st.text(  # no lone surrogates: materialization refuses them before anything is cut
    st.one_of(st.sampled_from("\n\n\nab é€😀"), st.characters(codec="utf-8")),
    max_size=400,
)
limits = st.builds(OutputLimits, lines=st.integers(1, 40), bytes=st.integers(1, 600))


class Args(TypedDict):
    n: int


def _run(parts: list[str], limit: OutputLimits) -> tuple[ToolExecutionResult, MemorySpills]:
    def finalize(identity: object, result: ToolExecutionResult) -> Sequence[ContentBlock]:
        return [TextBlock(part) for part in parts]

    def body(args: Args, ctx: ToolRunContext) -> str:
        return ""

    location = Location()
    location.register(
        define_tool(
            name="t",
            description="d",
            parameters=Args,
            output=Output(str),
            execute=body,
            finalize_content=finalize,
            output_limits=limit,
        )
    )
    spills = MemorySpills()
    call = ToolCall("c", "t", {"n": 1}, CancelSignal())
    result: ToolExecutionResult = DeterministicInterpreter(spills=spills).run(
        execute(location.catalog(), call)
    )
    return result, spills


def _whole(parts: list[str]) -> str:
    joined = ""
    for part in parts:
        if joined and not joined.endswith("\n"):
            joined += "\n"
        joined += part
    return joined


@given(st.lists(texts, min_size=1, max_size=3), limits)
def test_the_model_sees_a_prefix_within_the_limits_and_the_spill_is_the_whole(
    parts: list[str], limit: OutputLimits
) -> None:
    result, spills = _run(parts, limit)
    whole = _whole(parts)
    if count_lines(whole) <= limit.lines and count_bytes(whole) <= limit.bytes:
        assert [block.text for block in result.content if isinstance(block, TextBlock)] == parts
        assert spills.texts == {}
        return
    (block,) = result.content
    assert isinstance(block, TextBlock)
    assert count_lines(block.text) <= limit.lines
    assert count_bytes(block.text) <= limit.bytes
    ((path, kept),) = spills.texts.items()
    assert kept == whole
    shown, cut, _ = block.text.rpartition("\n[output cut: ")
    if cut:  # the note fits after a head: the head is a prefix of the whole, the note says where
        assert whole.startswith(shown)
        assert f"{SAVED}{path}: " in block.text
    else:  # limits too small for more: the note alone, cut to them
        assert block.text.startswith("[output cut: showing 0 of "[: limit.bytes])


@given(st.lists(texts, min_size=1, max_size=3), limits)
def test_text_within_the_clear_bound_is_within_both_limits(
    pieces: list[str], limit: OutputLimits
) -> None:
    """`clear_chars` bounds blocks joined by line breaks without a pass over them: blocks whose
    lengths and breaks sum to at most it are within both limits, whatever they hold."""
    joined = "\n".join(pieces)
    if sum(len(piece) + 1 for piece in pieces) <= limit.clear_chars:
        assert count_lines(joined) <= limit.lines
        assert count_bytes(joined) <= limit.bytes
    assert limit.clear_chars in {limit.lines, limit.bytes // 4}
