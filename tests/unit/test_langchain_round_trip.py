"""A toolfx tool exported to LangChain and imported back shows the model the same content."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Result

from toolfx.core import (
    AudioBlock,
    Body,
    CancelSignal,
    ContentBlock,
    ErrorCode,
    ImageBlock,
    JsonValue,
    Location,
    Output,
    TextBlock,
    ToolCall,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolFailure,
    ToolRunContext,
    WithContent,
    define_tool,
    execute,
)
from toolfx.interpreters import run_anyio
from toolfx.interpreters.langchain import tools
from toolfx.leaves.langchain import register

_DATA = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", max_size=12)
_TEXT = st.text(max_size=40)
BLOCKS = st.lists(
    st.one_of(
        st.builds(TextBlock, _TEXT),
        st.builds(ImageBlock, _DATA, st.sampled_from(["image/png", "image/jpeg"])),
        st.builds(AudioBlock, _DATA, st.sampled_from(["audio/wav", "audio/mpeg"])),
    ),
    max_size=4,
)


def _round_trip(body: Body[dict[str, JsonValue], JsonValue]) -> ToolExecutionResult:
    """Run tool `show` (with `body`) exported to LangChain and registered back in a Location."""
    original = Location()
    original.register(
        define_tool(
            name="show",
            description="Shows what it was given",
            parameters=dict[str, JsonValue],
            output=Output(JsonValue),
            execute=body,
        )
    )
    imported = Location()
    register(imported, tools(original))
    return run_anyio(execute(imported.catalog(), ToolCall("r1", "show", {}, CancelSignal())))


def _expected(blocks: Sequence[ContentBlock]) -> tuple[ContentBlock, ...]:
    texts = [block.text for block in blocks if isinstance(block, TextBlock)]
    return (TextBlock("\n".join(texts)),) if len(texts) == len(blocks) else tuple(blocks)


@given(BLOCKS)
def test_content_survives_the_round_trip(blocks: list[ContentBlock]) -> None:
    def body(args: dict[str, JsonValue], ctx: ToolRunContext) -> WithContent[JsonValue]:
        return WithContent(None, blocks)

    assert _round_trip(body).content == _expected(blocks)


@given(_TEXT)
def test_a_failure_s_text_survives_the_round_trip(message: str) -> None:
    def body(args: dict[str, JsonValue], ctx: ToolRunContext) -> Result[JsonValue, ToolFailure]:
        return Failure(ToolFailure.of(ErrorCode.TOOL_ERROR, message))

    result = _round_trip(body)
    assert isinstance(result, ToolExecutionFailure)
    assert (result.error.code, result.error.message) == (ErrorCode.TOOL_ERROR, message)
