"""The MCP adapter's pure parts: model-facing names, and MCP results as values and content."""

from __future__ import annotations

import hashlib

import mcp_types as types
import pytest
from returns.result import Failure, Success

from tests.integration.mcp_test_server import MEDIA
from toolfx.core.json import snapshot_json
from toolfx.core.jsonschema import compile_json_schema
from toolfx.core.tools import (
    AudioBlock,
    ErrorCode,
    ImageBlock,
    ResourceBlobBlock,
    ResourceLinkBlock,
    ResourceTextBlock,
    TextBlock,
    WithContent,
)
from toolfx.interpreters.cli import _mcp_calls as serve_keys
from toolfx.interpreters.cli._mcp_content import mcp_block
from toolfx.leaves.mcp._names import check_namespace, tool_name
from toolfx.leaves.mcp._results import CALL_ID_META, ERROR_META, block_of, outcome_of


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


def test_text_content_is_the_value_and_the_content() -> None:
    two = result(types.TextContent(text="a"), types.TextContent(text="b"))
    assert outcome_of(two, None, "t") == Success(
        WithContent("a\nb", (TextBlock("a"), TextBlock("b")))
    )


def test_every_block_keeps_its_kind_fields_and_annotations() -> None:
    notes = types.Annotations(audience=["assistant"], last_modified="2026-01-01T00:00:00Z")
    link = types.ResourceLink(
        name="notes", uri="file:///notes.md", description="My notes", annotations=notes
    )
    audio = types.AudioContent(data="AAAA", mime_type="audio/wav")
    text = types.EmbeddedResource(
        resource=types.TextResourceContents(uri="file:///a", text="body"), annotations=notes
    )
    blob = types.EmbeddedResource(
        resource=types.BlobResourceContents(uri="file:///b", blob="AAAA", mime_type="image/x")
    )
    annotations = snapshot_json(
        {"audience": ["assistant"], "lastModified": "2026-01-01T00:00:00Z"}
    ).unwrap()
    assert [block_of(b) for b in (link, audio, text, blob)] == [
        ResourceLinkBlock("file:///notes.md", "notes", None, "My notes", None, None, annotations),
        AudioBlock("AAAA", "audio/wav"),
        ResourceTextBlock("file:///a", "body", None, annotations),
        ResourceBlobBlock("file:///b", "AAAA", "image/x"),
    ]
    outcome = outcome_of(result(link, audio), None, "t")
    assert outcome.unwrap().value == (
        "[resource link: notes <file:///notes.md>] My notes\n"
        "[audio (audio/wav), 3 bytes, not shown as text]"
    )


def test_structured_content_is_the_value_beside_the_content() -> None:
    image = types.ImageContent(data="AAAA", mime_type="image/png")
    outcome = outcome_of(result(image, structuredContent={"w": 1}), None, "t")
    assert outcome == Success(WithContent({"w": 1}, (ImageBlock("AAAA", "image/png"),)))


def test_is_error_is_a_tool_error_with_the_servers_text() -> None:
    failed = outcome_of(result(types.TextContent(text="nope"), isError=True), None, "t")
    assert isinstance(failed, Failure)
    assert (failed.failure().code, failed.failure().message) == (ErrorCode.TOOL_ERROR, "nope")
    silent = outcome_of(result(isError=True), None, "t")
    assert silent.failure().message == "`t` reported an error without a message"


@pytest.mark.parametrize("code", list(ErrorCode))
def test_a_toolfx_servers_error_code_is_kept(code: ErrorCode) -> None:
    meta = {ERROR_META: {"code": code.value, "message": "m", "details": None}}
    failed = outcome_of(result(types.TextContent(text="m"), isError=True, _meta=meta), None, "t")
    assert failed.failure().code is code


@pytest.mark.parametrize(
    "meta", [{ERROR_META: {"code": "NOPE"}}, {ERROR_META: "DENIED"}, {ERROR_META: {"code": 1}}]
)
def test_an_unknown_or_malformed_error_code_is_a_tool_error(meta: dict[str, object]) -> None:
    failed = outcome_of(result(isError=True, _meta=meta), None, "t")
    assert failed.failure().code is ErrorCode.TOOL_ERROR


def test_the_client_and_toolfx_mcp_serve_agree_on_their_meta_keys() -> None:
    assert (ERROR_META, CALL_ID_META) == (serve_keys.ERROR_META, serve_keys.CALL_ID_META)


def test_structured_content_must_be_there_when_an_output_schema_is_declared() -> None:
    schema = compile_json_schema({"type": "object"}, "full").unwrap()
    missing = outcome_of(result(types.TextContent(text="{}")), schema, "t")
    assert isinstance(missing, Failure)
    assert missing.failure().code is ErrorCode.INVALID_TOOL_OUTPUT
    assert missing.failure().message == (
        "`t` declares an output schema but returned no structured content"
    )
    assert outcome_of(result(structuredContent={"a": 1}), schema, "t") == Success(
        WithContent({"a": 1}, ())
    )


def test_blocks_go_back_out_of_toolfx_mcp_serve_as_they_came_in() -> None:
    for block in MEDIA:
        back = mcp_block(block_of(block))
        assert back.model_dump(by_alias=True) == block.model_dump(by_alias=True), block


def test_annotations_that_are_not_mcp_annotations_are_left_out_going_out() -> None:
    odd = TextBlock("x", snapshot_json({"priority": "high"}).unwrap())
    assert mcp_block(odd) == types.TextContent(text="x")
