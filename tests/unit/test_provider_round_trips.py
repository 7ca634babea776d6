"""Provider round trips: recorded-shape replies (text only, several calls, strict nulls, bad JSON
arguments, images in results, errors), as dicts and as each SDK's own objects, go through
`calls`, `execute_batch` and `results`, and what comes back passes the SDK's own types."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, NotRequired, TypedDict

import pydantic
import pytest
from anthropic.types import Message, MessageParam
from anthropic.types import ToolParam as AnthropicToolParam
from google.genai.types import Content, GenerateContentResponse, Tool
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from openai.types.chat import ChatCompletionFunctionToolParam as ChatToolParam
from openai.types.responses import FunctionToolParam, Response, ResponseInputItemParam

from toolfx.core.json import JsonValue
from toolfx.core.pipeline import ToolCall, execute_batch
from toolfx.core.providers import (
    ReplyError,
    anthropic_messages,
    gemini,
    openai_chat,
    openai_responses,
)
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import (
    ContextMessage,
    ErrorCode,
    ImageBlock,
    Output,
    TextBlock,
    ToolExecutionFailure,
    ToolExecutionSuccess,
    define_tool,
)
from toolfx.interpreters import run_sync


class ForecastArgs(TypedDict):
    city: str
    days: NotRequired[int]


class NoArgs(TypedDict):
    pass


def _forecast(args: ForecastArgs, ctx: object) -> str:
    return f"{args['city']}: sunny for {args.get('days', 1)} days"


LOCATION: Final = Location()
LOCATION.register(
    define_tool(
        name="forecast",
        description="The weather ahead.",
        parameters=ForecastArgs,
        output=Output(str),
        execute=_forecast,
    )
)
LOCATION.register(
    define_tool(
        name="snapshot",
        description="A picture of the sky.",
        parameters=NoArgs,
        output=Output(str),
        execute=lambda args, ctx: "taken",
        finalize_content=lambda call, result: (ImageBlock("iVBORw0KGgo=", "image/png"),),
    )
)
CATALOG: Final = LOCATION.catalog()

# --- the scripted replies: (id, name, arguments as JSON text) per call ----------------------------

CALLS: Final = (
    ("call_1", "forecast", '{"city": "Oslo", "days": null}'),  # strict mode's null for "omitted"
    ("call_2", "forecast", '{"city": "Bergen", "days": 3}'),
    ("call_3", "snapshot", "{}"),
    ("call_4", "forecast", '{"city": "Oslo", "city": "Rome"}'),  # a duplicate key
    ("call_5", "forecast", '{"city": '),  # cut off
    ("call_6", "nowhere", "{}"),  # no such tool
)


def chat_reply(calls: tuple[tuple[str, str, str], ...]) -> dict[str, Any]:
    tool_calls = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls
    ]
    message: dict[str, Any] = {"role": "assistant", "content": None if calls else "Done."}
    if calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [
            {"index": 0, "finish_reason": "tool_calls", "logprobs": None, "message": message}
        ],
    }


def responses_reply(calls: tuple[tuple[str, str, str], ...]) -> dict[str, Any]:
    output: list[dict[str, Any]] = [
        {
            "type": "function_call",
            "id": f"fc_{i}",
            "call_id": i,
            "name": n,
            "arguments": a,
            "status": "completed",
        }
        for i, n, a in calls
    ] or [
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
        }
    ]
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "gpt-test",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "status": "completed",
    }


def anthropic_reply(calls: tuple[tuple[str, str, str], ...]) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": "Let me look."}]
    for i, n, a in calls:
        try:
            arguments = json.loads(a)
        except json.JSONDecodeError:
            continue  # Anthropic sends parsed input: only JSON objects reach a reply
        blocks.append({"type": "tool_use", "id": i, "name": n, "input": arguments})
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": blocks,
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def gemini_reply(calls: tuple[tuple[str, str, str], ...]) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": "Let me look."}]
    for _, n, a in calls:
        try:
            parts.append({"function_call": {"name": n, "args": json.loads(a)}})
        except json.JSONDecodeError:
            continue  # Gemini sends parsed args too
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}]}


@dataclass(frozen=True)
class Wire:
    """One wire format: its module, a scripted reply, the SDK's reply model, the SDK's types."""

    name: str
    module: Any
    reply: Callable[[tuple[tuple[str, str, str], ...]], dict[str, Any]]
    model: Any
    tool_type: Any
    next_type: Any
    """The SDK type `results` must pass (a TypeAdapter or a model's validator)."""


WIRES: Final = (
    Wire(
        "openai_chat",
        openai_chat,
        chat_reply,
        ChatCompletion,
        pydantic.TypeAdapter(ChatToolParam),
        pydantic.TypeAdapter(list[ChatCompletionMessageParam]),
    ),
    Wire(
        "openai_responses",
        openai_responses,
        responses_reply,
        Response,
        pydantic.TypeAdapter(FunctionToolParam),
        pydantic.TypeAdapter(list[ResponseInputItemParam]),
    ),
    Wire(
        "anthropic_messages",
        anthropic_messages,
        anthropic_reply,
        Message,
        pydantic.TypeAdapter(AnthropicToolParam),
        pydantic.TypeAdapter(MessageParam),
    ),
    Wire(
        "gemini",
        gemini,
        gemini_reply,
        GenerateContentResponse,
        Tool,
        Content,
    ),
)
BY_NAME: Final = {wire.name: wire for wire in WIRES}


def as_given(wire: Wire, form: str, calls: tuple[tuple[str, str, str], ...]) -> Any:
    """The scripted reply as a dict, or as the SDK's own object."""
    reply = wire.reply(calls)
    return reply if form == "dict" else wire.model.model_validate(reply)


def passes_the_sdk(wire: Wire, answer: Any) -> None:
    checker = wire.next_type
    if isinstance(checker, pydantic.TypeAdapter):
        checker.validate_python(answer)
    else:
        checker.model_validate(answer)


FORMS: Final = ("dict", "sdk")


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_a_text_only_reply_has_no_calls(name: str, form: str) -> None:
    wire = BY_NAME[name]
    assert wire.module.calls(as_given(wire, form, ()), CATALOG) == ()


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_a_reply_round_trips_through_the_pipeline_and_back(name: str, form: str) -> None:
    wire = BY_NAME[name]
    signal = CancelSignal()
    calls = wire.module.calls(as_given(wire, form, CALLS), CATALOG, signal)
    assert all(call.signal is signal for call in calls)
    batch = run_sync(execute_batch(CATALOG, calls))
    by_name = [(call.name, result) for call, result in zip(calls, batch.results, strict=True)]
    outcomes = [
        result.error.code if isinstance(result, ToolExecutionFailure) else result.value
        for _, result in by_name
    ]
    if name.startswith("openai"):  # arguments as text: every call arrives, the bad ones fail
        assert [call.call_id for call in calls] == [i for i, _, _ in CALLS]
        assert outcomes == [
            "Oslo: sunny for 1 days",  # the strict-mode null undone
            "Bergen: sunny for 3 days",
            "taken",
            ErrorCode.INVALID_ARGS,
            ErrorCode.INVALID_ARGS,
            ErrorCode.UNKNOWN_TOOL,
        ]
        messages = [r.error.message for r in batch.results if isinstance(r, ToolExecutionFailure)]
        assert "repeats the key 'city'" in messages[0]
        assert "not JSON" in messages[1]
    else:  # parsed arguments: a null is the model's own (and the schema refuses it)
        assert outcomes == [
            ErrorCode.INVALID_ARGS,
            "Bergen: sunny for 3 days",
            "taken",
            "Rome: sunny for 1 days",  # the scripted reply's json.loads kept the last key
            ErrorCode.UNKNOWN_TOOL,
        ]
    answer = wire.module.results(calls, batch)
    passes_the_sdk(wire, answer)
    assert json.dumps(answer, default=repr)  # plain data


def test_openai_chat_results_are_tool_messages_in_call_order() -> None:
    calls = openai_chat.calls(chat_reply(CALLS[:3]), CATALOG)
    batch = run_sync(execute_batch(CATALOG, calls))
    messages = openai_chat.results(calls, batch)
    assert [m["tool_call_id"] for m in messages if m["role"] == "tool"] == [
        "call_1",
        "call_2",
        "call_3",
    ]


def test_anthropic_results_flag_errors_and_carry_images_natively() -> None:
    calls = anthropic_messages.calls(anthropic_reply(CALLS), CATALOG)
    batch = run_sync(execute_batch(CATALOG, calls))
    message = anthropic_messages.results(calls, batch)
    blocks = list(message["content"])
    assert message["role"] == "user"
    assert [b["is_error"] for b in blocks] == [True, False, False, False, True]
    assert blocks[2]["content"] == [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
        }
    ]


def test_gemini_calls_without_ids_get_made_ids_that_are_not_sent_back() -> None:
    calls = gemini.calls(gemini_reply(CALLS[1:3]), CATALOG)
    ids = [call.call_id for call in calls]
    assert len(set(ids)) == 2
    assert [c.call_id for c in gemini.calls(gemini_reply(CALLS[1:3]), CATALOG)] == ids
    batch = run_sync(execute_batch(CATALOG, calls))
    content = gemini.results(calls, batch)
    responses = [part["function_response"] for part in content["parts"] or []]
    assert [r["name"] for r in responses if r] == ["forecast", "snapshot"]
    assert all("id" not in r for r in responses if r)  # the made ids are not sent back


def test_gemini_made_ids_differ_between_replies_at_the_same_place() -> None:
    first = gemini.calls(gemini_reply(CALLS[1:2]), CATALOG)
    later = gemini_reply(CALLS[1:2]) | {"response_id": "r2"}  # the next turn: another reply
    assert first[0].call_id != gemini.calls(later, CATALOG)[0].call_id
    as_sdk = gemini.calls(GenerateContentResponse.model_validate(later), CATALOG)
    assert as_sdk[0].call_id != first[0].call_id
    parts = [Content.model_validate(gemini_reply(CALLS[1:2])["candidates"][0]["content"]).parts]
    parts.append(Content.model_validate(gemini_reply(CALLS[2:3])["candidates"][0]["content"]).parts)
    found = [gemini.calls(listed or [], CATALOG)[0].call_id for listed in parts]  # SDK parts
    assert found[0] != found[1]


@pytest.mark.parametrize("given", ["toolfx-gemini-0", "gemini-0-x", "a-b", "-", "call_7"])
def test_gemini_sends_back_every_id_the_model_gave_whatever_it_looks_like(given: str) -> None:
    reply = {
        "candidates": [{"content": {"parts": [{"function_call": {"id": given, "name": "x"}}]}}]
    }
    calls = gemini.calls(reply, CATALOG)
    done = [ToolExecutionSuccess("ok", (TextBlock("ok"),))]
    (part,) = gemini.results(calls, done)["parts"] or []
    assert (part.get("function_response") or {}).get("id") == given


def test_gemini_reads_the_rest_api_casing_and_keeps_a_given_id() -> None:
    reply = {
        "candidates": [
            {"content": {"parts": [{"functionCall": {"id": "g1", "name": "snapshot", "args": {}}}]}}
        ]
    }
    (call,) = gemini.calls(reply, CATALOG)
    assert (call.call_id, call.name, call.arguments) == ("g1", "snapshot", {})


def test_tool_lists_pass_the_sdk_types() -> None:
    for wire in WIRES:
        exported = wire.module.tools(CATALOG)
        if wire.name == "gemini":
            Tool.model_validate(exported)
        else:
            for tool in exported:
                wire.tool_type.validate_python(tool)


HOSTILE: Final[tuple[tuple[Any, Any, str], ...]] = (
    (openai_chat, 3, "a reply is a dict or an SDK object, not integer 3"),
    (openai_chat, {"choices": "x"}, "/choices: expected an array"),
    (
        openai_chat,
        {"tool_calls": [{"id": 1, "function": {}}]},
        "/tool_calls/0/id: expected a string",
    ),
    (openai_responses, {"output": [{"type": "function_call", "call_id": "c"}]}, "/output/0/name"),
    (anthropic_messages, {"content": {"type": "tool_use"}}, "/content: expected an array"),
    (gemini, {"candidates": [{"content": {"parts": [{"function_call": {"args": {}}}]}}]}, "name"),
)


@pytest.mark.parametrize(("module", "reply", "where"), HOSTILE)
def test_a_reply_of_the_wrong_shape_is_a_reply_error_naming_where(
    module: Any, reply: Any, where: str
) -> None:
    with pytest.raises(ReplyError, match=where.replace("/", "/")):
        module.calls(reply, CATALOG)


def test_huge_or_non_object_arguments_fail_the_call_not_the_reply() -> None:
    deep = "[" * 10_000 + "]" * 10_000
    calls = openai_chat.calls(
        chat_reply((("a", "forecast", deep), ("b", "forecast", "[1]"), ("c", "forecast", "NaN"))),
        CATALOG,
    )
    batch = run_sync(execute_batch(CATALOG, calls))
    assert [r.error.code for r in batch.results if isinstance(r, ToolExecutionFailure)] == [
        ErrorCode.INVALID_ARGS
    ] * 3


def test_empty_argument_text_is_an_empty_object() -> None:
    (call,) = openai_chat.calls(chat_reply((("e", "snapshot", " "),)), CATALOG)
    assert (call.arguments, call.arguments_error) == ({}, None)


def test_results_need_one_result_per_call() -> None:
    call = ToolCall("a", "forecast", {}, CancelSignal())
    with pytest.raises(ValueError, match="1 calls were given 0 results"):
        openai_chat.results([call], [])


def test_additional_contexts_follow_the_answers_where_each_provider_takes_them() -> None:
    call = ToolCall("a", "forecast", {}, CancelSignal())
    remember = ContextMessage(
        (TextBlock("Remember: Oslo is wet."), ImageBlock("AAAA", "image/png")), "t"
    )
    done = [ToolExecutionSuccess("x", (TextBlock("sunny"),), None, (remember,))]
    chat = openai_chat.results([call], done)
    assert chat[1] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Remember: Oslo is wet."},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        ],
    }
    items = openai_responses.results([call], done)
    assert items[1] == {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": "Remember: Oslo is wet."},
            {"type": "input_image", "image_url": "data:image/png;base64,AAAA", "detail": "auto"},
        ],
    }
    blocks = list(anthropic_messages.results([call], done)["content"])
    assert [b["type"] for b in blocks] == ["tool_result", "text", "image"]
    parts = gemini.results([call], done)["parts"] or []
    assert parts[1] == {"text": "Remember: Oslo is wet."}
    assert parts[2] == {"inline_data": {"mime_type": "image/png", "data": b"\x00\x00\x00"}}
    for wire, answer in zip(
        WIRES,
        (chat, items, anthropic_messages.results([call], done), gemini.results([call], done)),
        strict=True,
    ):
        passes_the_sdk(wire, answer)


class LabelArgs(TypedDict):
    labels: dict[str, JsonValue]


def test_a_tool_strict_mode_cannot_take_is_sent_loose_with_a_note() -> None:
    location = Location()
    location.register(
        define_tool(
            name="label",
            description="Label things.",
            parameters=LabelArgs,
            output=Output(str),
            execute=lambda args, ctx: "",
        )
    )
    catalog = location.catalog()
    assert openai_chat.tools(catalog)[0]["function"]["strict"] is False
    assert openai_responses.tools(catalog)[0]["strict"] is False
    for module in (openai_chat, openai_responses):
        (note,) = module.notes(catalog)
        assert note.tool == "label"
        assert "open object" in note.reason
    assert anthropic_messages.notes(catalog) == ()


# --- SDK objects wherever they sit, empty replies, repeated ids ---------------------------------


def _sdk(wire: Wire) -> Any:
    return wire.model.model_validate(wire.reply(CALLS[1:3]))


def test_the_sdks_lists_of_calls_are_read_item_by_item() -> None:
    expected = [("call_2", "forecast"), ("call_3", "snapshot")]
    completion = _sdk(BY_NAME["openai_chat"])
    response = _sdk(BY_NAME["openai_responses"])
    message = _sdk(BY_NAME["anthropic_messages"])
    generated = _sdk(BY_NAME["gemini"])
    for module, listed in (
        (openai_chat, completion.choices[0].message.tool_calls),
        (openai_chat, {"tool_calls": completion.choices[0].message.tool_calls}),
        (openai_chat, {"choices": [{"message": completion.choices[0].message}]}),
        (openai_responses, response.output),
        (openai_responses, {"output": response.output}),
        (anthropic_messages, message.content),
        (anthropic_messages, {"role": "assistant", "content": message.content}),
        (gemini, generated.candidates[0].content.parts),
        (gemini, {"parts": generated.candidates[0].content.parts}),
    ):
        found = module.calls(listed, CATALOG)
        assert [c.name for c in found] == [n for _, n in expected], module.__name__
        if module is not gemini:
            assert [(c.call_id, c.name) for c in found] == expected


def test_an_sdk_object_that_cannot_dump_itself_is_a_reply_error() -> None:
    class Broken:
        def model_dump(self, *, mode: str) -> dict[str, Any]:
            raise RuntimeError("no")

    with pytest.raises(ReplyError, match="/output/0: its model_dump failed: no"):
        openai_responses.calls({"output": [Broken()]}, CATALOG)


@pytest.mark.parametrize(
    ("module", "reply"),
    [
        (openai_chat, {"choices": []}),
        (openai_chat, []),
        (openai_chat, {}),
        (gemini, {"candidates": []}),
        (gemini, {}),
        (gemini, {"candidates": [{"finish_reason": "SAFETY"}]}),
        (openai_responses, {"output": []}),
        (anthropic_messages, {"content": []}),
    ],
)
def test_a_reply_with_nothing_in_it_has_no_calls(module: Any, reply: Any) -> None:
    assert module.calls(reply, CATALOG) == ()


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_a_reply_that_gives_two_calls_one_id_is_a_reply_error(name: str, form: str) -> None:
    wire = BY_NAME[name]
    twice = (("same", "forecast", '{"city": "Oslo"}'), ("same", "snapshot", "{}"))
    reply = wire.reply(twice)
    if name == "gemini":  # the scripted Gemini reply has no ids: give both the same one
        for part in reply["candidates"][0]["content"]["parts"][1:]:
            part["function_call"]["id"] = "same"
    given = reply if form == "dict" else wire.model.model_validate(reply)
    with pytest.raises(ReplyError, match=r"call id 'same' is given already at /.*/\d"):
        wire.module.calls(given, CATALOG)


def test_strict_nulls_are_undone_in_arguments_that_arrive_parsed() -> None:
    def reply(arguments: object) -> dict[str, Any]:
        function = {"name": "forecast", "arguments": arguments}
        return {"tool_calls": [{"id": "p", "type": "function", "function": function}]}

    (found,) = openai_chat.calls(reply({"city": "Oslo", "days": None}), CATALOG)
    assert found.arguments == {"city": "Oslo"}
    (refused,) = openai_chat.calls(reply({"city": "Oslo", "days": {1}}), CATALOG)
    assert refused.arguments_error is not None  # not JSON: the call says so


def _answered(*blocks: Any, contexts: tuple[ContextMessage, ...] = ()) -> list[Any]:
    return [ToolExecutionSuccess("x", tuple(blocks), None, contexts)]


def test_no_wire_format_sends_an_empty_text_part() -> None:
    call = ToolCall("e", "forecast", {}, CancelSignal())
    blank = ContextMessage((TextBlock(""),), "t")
    done = _answered(TextBlock(""), contexts=(blank,))
    chat = openai_chat.results([call], done)
    assert chat == [{"role": "tool", "tool_call_id": "e", "content": ""}]
    items = openai_responses.results([call], done)
    assert items == [{"type": "function_call_output", "call_id": "e", "output": ""}]
    message = anthropic_messages.results([call], done)
    assert message["content"] == [{"type": "tool_result", "tool_use_id": "e", "is_error": False}]
    content = gemini.results([call], done)
    assert content["parts"] == [
        {"function_response": {"name": "forecast", "response": {"output": ""}, "id": "e"}}
    ]
    for wire, answer in zip(WIRES, (chat, items, message, content), strict=True):
        passes_the_sdk(wire, answer)


def test_a_tool_messages_images_go_to_the_user_message_after_it_labelled_with_the_call() -> None:
    calls = [
        ToolCall("a", "snapshot", {}, CancelSignal()),
        ToolCall("b", "forecast", {}, CancelSignal()),
    ]
    image = ImageBlock("iVBORw0KGgo=", "image/png")
    later = ContextMessage((TextBlock("Also this."),), "t")
    done = [
        *_answered(TextBlock("a sky"), image),
        *_answered(TextBlock("sunny"), contexts=(later,)),
    ]
    messages = openai_chat.results(calls, done)
    passes_the_sdk(BY_NAME["openai_chat"], messages)
    assert json.dumps(messages[0]).count("iVBORw0KGgo=") == 0
    assert messages[0]["content"] == [
        {"type": "text", "text": "a sky"},
        {"type": "text", "text": "[image (image/png): in the user message after the tool results]"},
    ]
    assert messages[2] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Images from the result of call a (`snapshot`):"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            {"type": "text", "text": "Also this."},
        ],
    }


def test_made_ids_come_from_any_reply_however_deep_shared_or_cyclic() -> None:
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(100_000):
        node["a"] = node = {}
    part = {"function_call": {"name": "snapshot", "args": {}}}
    reply: dict[str, Any] = {"candidates": [{"content": {"parts": [part]}}], "deep": deep}
    reply["self"] = reply
    reply["odd"] = [10**5000, float("nan"), b"\xff", "\ud800", None, True, object()]
    (call,) = gemini.calls(reply, CATALOG)
    assert call.call_id == gemini.calls(reply, CATALOG)[0].call_id
    reply["odd"][0] += 1
    assert gemini.calls(reply, CATALOG)[0].call_id != call.call_id
