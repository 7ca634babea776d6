"""Provider round trips: what pyright infers, that the SDKs' create calls take the tool lists and
results with no cast (checked only, never run), and what it refuses."""

from typing import assert_type

from anthropic import Anthropic
from anthropic.types import MessageParam
from google import genai
from google.genai import types
from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam
from openai.types.responses import ResponseInputItemParam

from toolfx.core import (
    Catalog,
    Registry,
    ToolCall,
    ToolExecutionResult,
    ToolNote,
    anthropic_messages,
    gemini,
    openai_chat,
    openai_responses,
)

catalog = Registry().catalog()
assert_type(openai_chat.notes(catalog), tuple[ToolNote, ...])
assert_type(openai_chat.calls({}, catalog), tuple[ToolCall, ...])
assert_type(openai_chat.tools(catalog)[0]["function"]["name"], str)
assert_type(anthropic_messages.tools(catalog)[0]["name"], str)

openai_chat.calls({}, "catalog")  # pyright: ignore[reportArgumentType]
openai_chat.calls(42, catalog)  # pyright: ignore[reportArgumentType]
note = ToolNote("t", "/a", "why")
note.reason = "x"  # pyright: ignore[reportAttributeAccessIssue]


def chat(calls: list[ToolCall], done: list[ToolExecutionResult]) -> None:
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": "Weather?"}]
    messages.extend(openai_chat.results(calls, done))
    OpenAI().chat.completions.create(
        model="gpt-test", messages=messages, tools=openai_chat.tools(catalog)
    )


def responses(calls: list[ToolCall], done: list[ToolExecutionResult]) -> None:
    items: list[ResponseInputItemParam] = [*openai_responses.results(calls, done)]
    OpenAI().responses.create(model="gpt-test", input=items, tools=openai_responses.tools(catalog))


def messages(turn_catalog: Catalog, calls: list[ToolCall], done: list[ToolExecutionResult]) -> None:
    turn: list[MessageParam] = [
        {"role": "user", "content": "Weather?"},
        anthropic_messages.results(calls, done),
    ]
    Anthropic().messages.create(
        model="claude-test",
        max_tokens=1024,
        messages=turn,
        tools=anthropic_messages.tools(turn_catalog),
    )


def generate(calls: list[ToolCall], done: list[ToolExecutionResult]) -> None:
    contents: list[types.ContentDict] = [
        {"role": "user", "parts": [{"text": "Weather?"}]},
        gemini.results(calls, done),
    ]
    # google-genai's own signature is partly unknown (PIL is not installed): not our types
    genai.Client().models.generate_content(  # pyright: ignore[reportUnknownMemberType]
        model="gemini-test", contents=contents, config={"tools": [gemini.tools(catalog)]}
    )


def cached(turn_catalog: Catalog) -> None:
    tools = anthropic_messages.tools(turn_catalog)
    Anthropic().messages.create(
        model="claude-test",
        max_tokens=1024,
        messages=[{"role": "user", "content": "Weather?"}],
        tools=[*tools[:-1], {**tools[-1], "cache_control": {"type": "ephemeral"}}],
    )


def generate_with_the_pydantic_config() -> None:
    config = types.GenerateContentConfig(tools=[types.Tool.model_validate(gemini.tools(catalog))])
    genai.Client().models.generate_content(  # pyright: ignore[reportUnknownMemberType]
        model="gemini-test", contents="Weather?", config=config
    )
