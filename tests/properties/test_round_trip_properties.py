"""Laws of the provider round trips over arbitrary calls: a reply built from calls gives back
their ids, names and arguments, in order (the arguments as JSON text for OpenAI, as parsed
objects for Anthropic and Gemini); `results` answers each call once, in order, by its id."""

from __future__ import annotations

import json
import string
from collections.abc import Callable
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolfx.core.json import thaw_json
from toolfx.core.pipeline import ToolCall
from toolfx.core.providers import (
    ReplyError,
    anthropic_messages,
    gemini,
    openai_chat,
    openai_responses,
)
from toolfx.core.registry import Registry
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import ErrorCode, ToolExecutionSuccess, failed, text

CATALOG: Final = Registry().catalog()  # no tools: the arguments come back exactly as sent

names = st.text(alphabet=string.ascii_letters + string.digits + "_-", min_size=1, max_size=12)
strings = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=8)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | strings
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(strings, inner, max_size=4),
    max_leaves=12,
)
arguments = st.dictionaries(strings, values, max_size=4)
requested = st.lists(st.tuples(names, names, arguments), max_size=5, unique_by=lambda c: c[0])

Call = tuple[str, str, dict[str, Any]]


def chat(calls: list[Call]) -> dict[str, Any]:
    tool_calls = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, n, a in calls
    ]
    return {"choices": [{"message": {"role": "assistant", "tool_calls": tool_calls}}]}


def responses(calls: list[Call]) -> dict[str, Any]:
    output = [
        {"type": "function_call", "call_id": i, "name": n, "arguments": json.dumps(a)}
        for i, n, a in calls
    ]
    return {"output": [{"type": "reasoning", "summary": []}, *output]}


def messages(calls: list[Call]) -> dict[str, Any]:
    blocks = [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]
    return {"role": "assistant", "content": [{"type": "text", "text": "ok"}, *blocks]}


def generate(calls: list[Call]) -> dict[str, Any]:
    parts = [{"function_call": {"id": i, "name": n, "args": a}} for i, n, a in calls]
    return {"candidates": [{"content": {"role": "model", "parts": parts}}]}


WIRES: Final[tuple[tuple[Any, Callable[[list[Call]], dict[str, Any]]], ...]] = (
    (openai_chat, chat),
    (openai_responses, responses),
    (anthropic_messages, messages),
    (gemini, generate),
)


@given(requested)
def test_a_reply_built_from_calls_gives_them_back(calls: list[Call]) -> None:
    for module, reply in WIRES:
        signal = CancelSignal()
        found = module.calls(reply(calls), CATALOG, signal)
        assert [(c.call_id, c.name, thaw_json(c.arguments)) for c in found] == calls
        assert all(c.signal is signal and c.arguments_error is None for c in found)


@given(requested, st.lists(st.booleans(), min_size=5, max_size=5))
def test_results_answer_each_call_once_in_order(calls: list[Call], failures: list[bool]) -> None:
    made = [ToolCall(i, n, a, CancelSignal()) for i, n, a in calls]
    done = [
        failed(ErrorCode.TOOL_ERROR, f"no {i}") if bad else ToolExecutionSuccess(None, text(i))
        for (i, _, _), bad in zip(calls, failures, strict=False)
    ]
    ids = [i for i, _, _ in calls]
    chat_answers = openai_chat.results(made, done)  # no additional contexts: answers only
    assert [m["tool_call_id"] for m in chat_answers if m["role"] == "tool"] == ids
    assert len(chat_answers) == len(ids)
    outputs = openai_responses.results(made, done)
    assert [m.get("call_id") for m in outputs if m.get("type") == "function_call_output"] == ids
    assert len(outputs) == len(ids)
    blocks = list(anthropic_messages.results(made, done)["content"])
    assert [(b["tool_use_id"], b["is_error"]) for b in blocks] == list(
        zip(ids, failures[: len(ids)], strict=True)
    )
    parts = gemini.results(made, done)["parts"] or []
    answered = [p.get("function_response") or {} for p in parts]
    assert [(r.get("id"), r.get("name")) for r in answered] == [(i, n) for i, n, _ in calls]


def _mangled(reply: Any, value: Any, path: list[int]) -> Any:
    """The reply with the node `path` leads to (by child index) replaced with `value`."""
    if not path or not isinstance(reply, dict | list) or not reply:
        return value
    keys = list(reply) if isinstance(reply, dict) else list(range(len(reply)))
    key = keys[path[0] % len(keys)]
    copy = dict(reply) if isinstance(reply, dict) else list(reply)
    copy[key] = _mangled(reply[key], value, path[1:])
    return copy


@given(requested, values, st.lists(st.integers(min_value=0, max_value=7), max_size=6))
def test_a_reply_of_any_shape_gives_calls_or_a_reply_error(
    calls: list[Call], value: Any, path: list[int]
) -> None:
    for module, reply in WIRES:
        hostile = _mangled(reply(calls), value, path)
        try:
            found = module.calls(hostile, CATALOG)
        except ReplyError:
            continue
        assert all(isinstance(call, ToolCall) for call in found)


@given(requested.filter(bool), st.data())
def test_a_reply_that_repeats_a_call_id_is_a_reply_error(calls: list[Call], data: Any) -> None:
    again = data.draw(st.sampled_from(calls))
    at = data.draw(st.integers(min_value=0, max_value=len(calls)))
    repeated = [*calls[:at], (again[0], "other", {}), *calls[at:]]
    for module, reply in WIRES:
        with pytest.raises(ReplyError, match=f"call id {again[0]!r} is given already at /"):
            module.calls(reply(repeated), CATALOG)


@given(st.text(min_size=1, max_size=40), names)
def test_gemini_sends_back_every_given_id_and_none_it_made(given_id: str, name: str) -> None:
    parts = [
        {"function_call": {"id": given_id, "name": name, "args": {}}},
        {"function_call": {"name": name, "args": {}}},
    ]
    calls = gemini.calls({"candidates": [{"content": {"parts": parts}}]}, CATALOG)
    done = [ToolExecutionSuccess(None, text("ok"))] * 2
    parts_back = gemini.results(calls, done)["parts"] or []
    answered = [p.get("function_response") or {} for p in parts_back]
    assert [r.get("id") for r in answered] == [given_id, None]
