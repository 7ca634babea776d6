"""Content as text, and tool results in each provider's shape: native where the provider has the
kind, text that says what it is otherwise, no block dropped."""

from __future__ import annotations

from toolfx.core.providers import (
    anthropic_result_content,
    gemini_function_response,
    openai_result_content,
)
from toolfx.core.tools import (
    AudioBlock,
    ContentBlock,
    ImageBlock,
    ResourceBlobBlock,
    ResourceLinkBlock,
    ResourceTextBlock,
    TextBlock,
    block_text,
    content_text,
)

CONTENT: tuple[ContentBlock, ...] = (
    TextBlock("hello", {"audience": ["user"]}),
    ImageBlock("AAAA", "image/png"),
    AudioBlock("AAAAAAAA", "audio/wav"),
    ResourceTextBlock("file:///a.md", "# A", "text/markdown"),
    ResourceBlobBlock("file:///a.pdf", "JVBE", "application/pdf"),
    ResourceBlobBlock("file:///a.bin", "AAAA"),
    ResourceLinkBlock("file:///big.csv", "big.csv", None, "a table", "text/csv", 10),
)

TEXTS = [
    "hello",
    "[image (image/png), 3 bytes, not shown as text]",
    "[audio (audio/wav), 6 bytes, not shown as text]",
    "[resource <file:///a.md> (text/markdown)]\n# A",
    "[resource <file:///a.pdf> (application/pdf), 3 bytes, not shown as text]",
    "[resource <file:///a.bin>, 3 bytes, not shown as text]",
    "[resource link: big.csv <file:///big.csv> (text/csv, 10 bytes)] a table",
]


def test_each_block_as_text_says_what_it_is() -> None:
    assert [block_text(block) for block in CONTENT] == TEXTS
    assert content_text(CONTENT) == "\n".join(TEXTS)
    titled = ResourceLinkBlock("u", "n", title="The N")
    assert block_text(titled) == "[resource link: The N <u>]"


def test_openai_tool_messages_carry_text_parts_only() -> None:
    assert openai_result_content(CONTENT) == [{"type": "text", "text": t} for t in TEXTS]


def test_anthropic_takes_images_and_documents_natively() -> None:
    assert anthropic_result_content(CONTENT) == [
        {"type": "text", "text": "hello"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
        {"type": "text", "text": TEXTS[2]},
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": "# A"},
            "title": "file:///a.md",
        },
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"},
            "title": "file:///a.pdf",
        },
        {"type": "text", "text": TEXTS[5]},
        {"type": "text", "text": TEXTS[6]},
    ]
    svg = anthropic_result_content([ImageBlock("PHN2Zz4=", "image/svg+xml")])
    assert svg == [{"type": "text", "text": "[image (image/svg+xml), 6 bytes, not shown as text]"}]


def test_gemini_gets_the_text_and_the_media_as_inline_data() -> None:
    assert gemini_function_response("look", CONTENT) == {
        "name": "look",
        "response": {"output": "\n".join(TEXTS)},
        "parts": [
            {"inlineData": {"mimeType": "image/png", "data": "AAAA"}},
            {"inlineData": {"mimeType": "audio/wav", "data": "AAAAAAAA"}},
            {"inlineData": {"mimeType": "application/pdf", "data": "JVBE"}},
            {"inlineData": {"mimeType": "application/octet-stream", "data": "AAAA"}},
        ],
    }
    assert gemini_function_response("t", [TextBlock("x")]) == {
        "name": "t",
        "response": {"output": "x"},
    }
