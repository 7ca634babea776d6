"""The MCP adapter's pure parts: model-facing names, and MCP results as values and content."""

from __future__ import annotations

import hashlib

import mcp_types as types
import pytest
from returns.result import Failure, Success

from toolfx.core import ErrorCode, ImageBlock, JsonValue, TextBlock, compile_json_schema
from toolfx.leaves.mcp.names import check_namespace, tool_name
from toolfx.leaves.mcp.results import outcome_of, render_result


def test_a_valid_name_is_kept() -> None:
    assert tool_name("fs", "read_file") == tool_name("fs", "read_file")
    assert tool_name("fs", "read_file").name == "read_file"
    assert not tool_name("fs", "read_file").sanitised


def test_other_characters_become_underscores() -> None:
    named = tool_name("fs", "files.read/all")
    assert (named.name, named.sanitised, named.shortened) == ("files_read_all", True, False)


def test_a_long_name_is_cut_to_64_with_a_hash_of_the_original() -> None:
    original = "x" * 70
    named = tool_name("fs", original)
    digest = hashlib.sha256(original.encode()).hexdigest()[:8]
    assert f"fs_{named.name}" == f"fs_{'x' * 52}_{digest}"
    assert len(f"fs_{named.name}") == 64
    assert named.shortened


def test_names_that_differ_only_after_the_cut_stay_apart() -> None:
    a, b = tool_name("fs", "y" * 80 + "a"), tool_name("fs", "y" * 80 + "b")
    assert a.name != b.name


@pytest.mark.parametrize("namespace", ["", "has space", "n" * 54])
def test_a_namespace_must_leave_room_for_names(namespace: str) -> None:
    with pytest.raises(ValueError, match="MCP namespace"):
        check_namespace(namespace)


def result(*content: types.ContentBlock, **fields: object) -> types.CallToolResult:
    return types.CallToolResult.model_validate({"content": list(content), **fields})


def test_text_content_is_the_value() -> None:
    two = result(types.TextContent(text="a"), types.TextContent(text="b"))
    assert outcome_of(two, None, "t") == Success("a\nb")
    assert render_result(None, "a\nb") == (TextBlock("a\nb"),)


def test_other_blocks_become_text_that_says_what_they_are() -> None:
    link = types.ResourceLink(name="notes", uri="file:///notes.md", description="My notes")
    audio = types.AudioContent(data="AAAA", mime_type="audio/wav")
    assert outcome_of(result(link, audio), None, "t") == Success(
        "[resource link: notes <file:///notes.md>] My notes\n"
        "[audio (audio/wav), 4 base64 characters, not shown]"
    )


def test_an_image_keeps_the_parts_and_renders_them_back() -> None:
    image = types.ImageContent(data="AAAA", mime_type="image/png")
    outcome = outcome_of(result(types.TextContent(text="see:"), image), None, "t")
    parts: JsonValue = [
        {"type": "text", "text": "see:"},
        {"type": "image", "data": "AAAA", "media_type": "image/png"},
    ]
    assert outcome == Success(parts)
    assert render_result(None, parts) == (TextBlock("see:"), ImageBlock("AAAA", "image/png"))
    assert render_result(None, [{"type": "text", "text": "x", "more": 1}]) == (
        TextBlock('[{"type":"text","text":"x","more":1}]'),
    )


def test_is_error_is_a_tool_error_with_the_servers_text() -> None:
    failed = outcome_of(result(types.TextContent(text="nope"), isError=True), None, "t")
    assert isinstance(failed, Failure)
    assert (failed.failure().code, failed.failure().message) == (ErrorCode.TOOL_ERROR, "nope")
    silent = outcome_of(result(isError=True), None, "t")
    assert silent.failure().message == "`t` reported an error without a message"


def test_structured_content_must_be_there_when_an_output_schema_is_declared() -> None:
    schema = compile_json_schema({"type": "object"}, "full").unwrap()
    missing = outcome_of(result(types.TextContent(text="{}")), schema, "t")
    assert isinstance(missing, Failure)
    assert missing.failure().code is ErrorCode.INVALID_TOOL_OUTPUT
    assert missing.failure().message == (
        "`t` declares an output schema but returned no structured content"
    )
    assert outcome_of(result(structuredContent={"a": 1}), schema, "t") == Success({"a": 1})
