"""Content as text, and tool results in each provider's shape: native where the provider has the
kind, text that says what it is otherwise, no block dropped."""

from __future__ import annotations

import base64
from typing import Any

from toolfx.core.pipeline import ToolCall
from toolfx.core.providers import anthropic_messages, gemini, openai_chat, openai_responses
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import (
    AudioBlock,
    ContentBlock,
    ImageBlock,
    ResourceBlobBlock,
    ResourceLinkBlock,
    ResourceTextBlock,
    TextBlock,
    ToolExecutionSuccess,
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


CALL = ToolCall("c1", "look", {}, CancelSignal())


def answered(results: Any, content: tuple[ContentBlock, ...] = CONTENT) -> Any:
    """What a wire format's `results` gives for one call whose result has this content."""
    return results([CALL], [ToolExecutionSuccess(None, content)])


def test_openai_tool_messages_carry_text_and_their_images_follow_in_a_user_message() -> None:
    message, images = answered(openai_chat.results)
    pointer = "[image (image/png): in the user message after the tool results]"
    texts = [pointer if t.startswith("[image") else t for t in TEXTS]
    assert message == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": [{"type": "text", "text": t} for t in texts],
    }
    assert images == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Images from the result of call c1 (`look`):"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        ],
    }


def test_responses_outputs_carry_images_natively_and_the_rest_as_text() -> None:
    (item,) = answered(openai_responses.results)
    image = {"type": "input_image", "image_url": "data:image/png;base64,AAAA", "detail": "auto"}
    texts = [{"type": "input_text", "text": t} for t in TEXTS]
    assert item == {
        "type": "function_call_output",
        "call_id": "c1",
        "output": [texts[0], image, *texts[2:]],
    }


def test_anthropic_takes_images_and_documents_natively() -> None:
    (block,) = answered(anthropic_messages.results)["content"]
    assert block["is_error"] is False
    assert block["content"] == [
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
    svg = answered(anthropic_messages.results, (ImageBlock("PHN2Zz4=", "image/svg+xml"),))
    assert svg["content"][0]["content"] == [
        {"type": "text", "text": "[image (image/svg+xml), 6 bytes, not shown as text]"}
    ]


def test_gemini_gets_the_text_and_the_media_as_inline_data() -> None:
    def blob(media_type: str, data: str) -> dict[str, Any]:
        return {"inline_data": {"mime_type": media_type, "data": base64.b64decode(data)}}

    (part,) = answered(gemini.results)["parts"]
    assert part == {
        "function_response": {
            "id": "c1",
            "name": "look",
            "response": {"output": "\n".join(TEXTS)},
            "parts": [
                blob("image/png", "AAAA"),
                blob("audio/wav", "AAAAAAAA"),
                blob("application/pdf", "JVBE"),
                blob("application/octet-stream", "AAAA"),
            ],
        }
    }
    (part,) = answered(gemini.results, (TextBlock("x"),))["parts"]
    assert part == {"function_response": {"id": "c1", "name": "look", "response": {"output": "x"}}}
