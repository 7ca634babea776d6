"""Output limits: validated where they are made, taken per tool or per Location/Registry, and the
cut itself (whole lines, never half a character)."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from toolfx.core.pipeline._bounding import content_within
from toolfx.core.plaintext import count_bytes, count_lines, head, head_lines, tail_lines
from toolfx.core.registry import Location, Registry
from toolfx.core.tools import (
    DEFAULT_OUTPUT_LIMITS,
    Output,
    OutputLimits,
    TextBlock,
    ToolDefinitionError,
    define_tool,
)
from toolfx.leaves._diffs import ChangedLines
from toolfx.leaves._files import bounded_change, bounded_diff
from toolfx.leaves.workspace import WorkspaceLimits


class Args(TypedDict):
    text: str


def tool(**extra: Any) -> Any:
    return define_tool(
        name="t",
        description="d",
        parameters=Args,
        output=Output(str),
        execute=lambda args, ctx: "",
        **extra,
    )


@pytest.mark.parametrize("field", ["lines", "bytes"])
@pytest.mark.parametrize("value", [0, -1, True, 1.5, "3", None])
def test_limits_must_be_positive_ints_and_the_error_names_the_field(
    field: str, value: object
) -> None:
    with pytest.raises(ToolDefinitionError) as raised:
        OutputLimits(**{field: value})  # type: ignore[arg-type]
    assert raised.value.field_name == f"output_limits.{field}"
    assert str(raised.value) == f"output_limits.{field}: must be a positive int, not {value!r}"


def test_the_default_is_two_thousand_lines_and_fifty_kilobytes() -> None:
    assert OutputLimits(2000, 51_200) == DEFAULT_OUTPUT_LIMITS
    assert tool().output_limits is None
    assert Location().catalog().output_limits == DEFAULT_OUTPUT_LIMITS


def test_a_tool_takes_only_output_limits_or_none() -> None:
    assert tool(output_limits=OutputLimits(lines=3)).output_limits == OutputLimits(3, 51_200)
    with pytest.raises(ToolDefinitionError, match=r"tool 't': output_limits: must be an Output"):
        tool(output_limits=(10, 10))


def test_a_registry_and_a_location_carry_their_limits_to_every_catalog() -> None:
    limits = OutputLimits(5, 500)
    assert Registry(output_limits=limits).catalog().output_limits == limits
    assert Registry().with_output_limits(limits).catalog().output_limits == limits
    location = Location(output_limits=limits)
    location.add_scope("agent")
    assert location.catalog("agent").output_limits == limits
    assert Location(Registry(output_limits=limits)).catalog().output_limits == limits
    with pytest.raises(TypeError, match="must be an OutputLimits"):
        Registry(output_limits=100)  # type: ignore[arg-type]


def test_lines_end_with_a_line_break_or_the_text() -> None:
    assert [count_lines(t) for t in ["", "a", "a\n", "a\nb", "\n\n", "a\r\nb\u2028c"]] == [
        0,
        1,
        1,
        2,
        2,
        2,
    ]
    assert count_bytes("aé€😀\ud800") == 1 + 2 + 3 + 4 + 3


def test_a_head_keeps_whole_lines_unless_the_first_alone_is_over() -> None:
    text = "one\ntwo\nthree\n"
    assert head(text, 5, 100) is text  # within: the very same text, no copy
    assert head(text, 2, 100) == "one\ntwo\n"
    assert head(text, 5, 9) == "one\ntwo\n"  # "three" would pass 9 bytes
    assert head("ééééé\nx", 5, 5) == "éé"  # inside the first line, at a character boundary
    assert head(text, 0, 100) == ""


def test_a_tail_keeps_whole_lines_unless_the_last_alone_is_over() -> None:
    text = "one\ntwo\nthree\n"
    assert tail_lines(text, 5, 100) == text
    assert tail_lines(text, 2, 100) == "two\nthree\n"
    assert tail_lines(text, 5, 10) == "two\nthree\n"  # exactly 10 bytes: a line start, kept
    assert tail_lines(text, 5, 9) == "three\n"  # "two" would pass 9 bytes
    assert tail_lines("one\ntwo", 1, 100) == "two"  # a last line without its break
    assert tail_lines("x\néééééé", 5, 5) == "éé"  # inside the last line, at a character boundary
    assert tail_lines(text, 0, 100) == ""


def test_head_and_tail_lines_end_where_read_ends_them_and_never_split_a_crlf() -> None:
    text = "10%\r20%\r\n30%\x0c40%\u2028end"
    assert head_lines(text, 2, 100) == "10%\r20%\r\n"
    assert tail_lines(text, 2, 100) == "40%\u2028end"
    assert head_lines("ab\r\ncd", 5, 3) == "ab\r"  # the first line alone is over: cut inside
    assert head_lines("a\nb\r\ncd", 5, 4) == "a\n"  # "b\r" without its "\n" is not a line
    assert tail_lines("ab\r\ncd\n", 5, 4) == "cd\n"  # "\ncd\n" would start inside "\r\n"


def test_content_within_counts_text_blocks_only() -> None:
    limits = OutputLimits(lines=2, bytes=10)
    assert content_within((TextBlock("a\nb"),), limits)
    assert not content_within((TextBlock("a\nb\nc"),), limits)
    assert not content_within((TextBlock("a"), TextBlock("b"), TextBlock("c")), limits)
    assert content_within((TextBlock("é" * 5),), limits)
    assert not content_within((TextBlock("é" * 6),), limits)


def test_a_cut_diff_or_change_says_so_on_a_line_of_its_own() -> None:
    limits = WorkspaceLimits(max_lines=5, max_bytes=40)
    one_long_line = "+" + "x" * 100 + "\n"  # the first line alone is over: cut inside it
    cut = bounded_diff(one_long_line, limits, "; read the file")
    assert cut.splitlines()[-1] == "[diff cut at 1 of 1 line; read the file]"
    assert cut.endswith("x\n[diff cut at 1 of 1 line; read the file]\n")
    lines = bounded_diff("".join(f"+{n}\n" for n in range(10)), limits)
    assert lines.endswith("+4\n[diff cut at 5 of 10 lines]\n")
    change = bounded_change(ChangedLines(None, "y" * 100), limits)
    assert change.after.endswith("y\n[cut at 1 of 1 line]\n")
