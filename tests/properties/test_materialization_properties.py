"""Every result is frozen, JSON-safe, durable and immune to what its producers kept (issue 11).

Random bodies (a value, a typed failure with details, a raise; deferred contexts), execute
wrappers (pass through, or a hand-built result), post-execute listeners (accept with contexts,
replace content or value, block), presentation meta and `finalize_content` put random values
into every field of a result: JSON, values that are not lossless JSON (NaN, infinities, huge
integers, lone surrogates, non-str keys, sets, bytes, cycles, nesting past the limit, str
subclasses, non-blocks in content), all of them shared mutable objects the hooks keep. Whatever
they do, the call gives one result whose fields are all frozen, that writes as strict JSON and
reads back through the durable record codec, and that does not change when everything the hooks
handed over is mutated afterwards.
"""

from __future__ import annotations

import dataclasses
import json
import math
import typing
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure

from toolfx.core.json import INT_BOUND, NEGATIVE_INT_BOUND, FrozenDict, FrozenList, JsonValue
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.records import ToolResultRecord, contexts_from_json, contexts_to_json
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import (
    Accept,
    AudioBlock,
    Block,
    ContentBlock,
    ContextMessage,
    ErrorCode,
    ImageBlock,
    Output,
    PostToolDecision,
    ReplaceContent,
    ReplaceValue,
    ResourceBlobBlock,
    ResourceLinkBlock,
    ResourceTextBlock,
    TextBlock,
    ToolErrorInfo,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolFailure,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters.sync import run_sync


class Args(TypedDict):
    text: str


class Shouted(str):
    """A str subclass: its own text, however it overrides __str__."""

    __slots__ = ()

    def __str__(self) -> str:
        return "overridden"


def _cycle() -> list[Any]:
    looped: list[Any] = [1]
    looped.append(looped)
    return looped


def _huge() -> int:
    return 10**5000  # built, not sampled: hypothesis cannot repr it in a strategy


def _too_deep() -> list[Any]:
    nested: list[Any] = []
    for _ in range(200):
        nested = [nested]
    return nested


BAD_LEAVES = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, -(10**400), "\ud800", "a\udfffb"]),
    st.builds(_huge),
    st.builds(lambda: {1, 2}),
    st.builds(lambda: b"bytes"),
    st.builds(object),
    st.builds(_cycle),
    st.builds(_too_deep),
    st.builds(Shouted, st.text(max_size=5)),
)
JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
LEAVES = st.one_of(JSON_LEAVES, JSON_LEAVES, BAD_LEAVES)
VALUES = st.recursive(
    LEAVES,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.text(max_size=4), children, max_size=3),
        st.tuples(children, children),
        st.dictionaries(st.integers(), children, min_size=1, max_size=1),
    ),
    max_leaves=8,
)
"""Mostly JSON, sometimes not, every container a fresh mutable object."""

TEXTS = st.one_of(st.text(max_size=8), st.text(max_size=8), BAD_LEAVES)
BLOCKS = st.one_of(
    st.builds(TextBlock, TEXTS),
    st.builds(TextBlock, TEXTS),
    st.builds(ImageBlock, TEXTS, TEXTS),
    st.builds(TextBlock, TEXTS, VALUES),
    st.builds(AudioBlock, TEXTS, TEXTS, VALUES),
    st.builds(ResourceTextBlock, TEXTS, TEXTS, st.none() | TEXTS, VALUES),
    st.builds(ResourceBlobBlock, TEXTS, TEXTS, st.none() | TEXTS, VALUES),
    st.builds(
        ResourceLinkBlock,
        TEXTS,
        TEXTS,
        st.none() | TEXTS,
        st.none() | TEXTS,
        st.none() | TEXTS,
        st.none() | st.integers() | BAD_LEAVES,
        VALUES,
    ),
    VALUES,
)
CONTENT = st.lists(BLOCKS, max_size=3) | st.lists(BLOCKS, max_size=3).map(tuple)
CONTEXTS = st.lists(st.builds(ContextMessage, CONTENT, TEXTS, VALUES), max_size=2)
CODES = st.sampled_from(list(ErrorCode))
FAILURES = st.builds(
    lambda message, code, details: ToolFailure(message, ToolErrorInfo(code, details)),
    TEXTS,
    CODES,
    VALUES,
)


@dataclass(frozen=True)
class Plan:
    """What each producer of the call does."""

    body: tuple[Literal["value", "failure", "raise"], Any]
    deferred: list[ContextMessage]
    wrapper: ToolExecutionResult | None
    post: PostToolDecision | None
    meta: Any
    finalize: Any


RESULTS = st.one_of(
    st.builds(ToolExecutionSuccess, VALUES, CONTENT, VALUES, CONTEXTS, st.booleans()),
    st.builds(ToolExecutionFailure, FAILURES, CONTENT, VALUES, CONTEXTS),
)
POSTS = st.one_of(
    st.builds(Accept, CONTEXTS),
    st.builds(ReplaceContent, CONTENT, CONTEXTS),
    st.builds(ReplaceValue, VALUES, CONTEXTS),
    st.builds(Block, CONTENT, CONTEXTS),
)
PLANS = st.builds(
    Plan,
    body=st.one_of(
        st.tuples(st.just("value"), VALUES),
        st.tuples(st.just("failure"), FAILURES),
        st.tuples(st.just("raise"), TEXTS),
    ),
    deferred=CONTEXTS,
    wrapper=st.none() | RESULTS,
    post=st.none() | POSTS,
    meta=st.none() | VALUES,
    finalize=st.none() | CONTENT | st.just("raise"),
)


def _run(plan: Plan) -> ToolExecutionResult:
    def body(args: Args, ctx: ToolRunContext) -> Any:
        for message in plan.deferred:
            ctx.defer_context(message)
        kind, payload = plan.body
        if kind == "failure":
            return Failure(payload)
        if kind == "raise":
            raise ValueError(payload)
        return payload

    def finalize(execution: Any, result: ToolExecutionResult) -> Any:
        if plan.finalize == "raise":
            raise RuntimeError("finalize broke")
        return plan.finalize

    location = Location()
    location.register(
        define_tool(
            name="tool",
            description="d",
            parameters=Args,
            output=Output(
                JsonValue,
                presentation_meta=None if plan.meta is None else lambda args, value: plan.meta,
            ),
            execute=body,
            finalize_content=None if plan.finalize is None else finalize,
        )
    )
    if plan.wrapper is not None:
        replaced = plan.wrapper

        async def wrap(execution: ToolExecution, next_: Any) -> ToolExecutionResult:
            await next_(execution)
            return replaced

        location.wrap_execute(wrap)
    if plan.post is not None:
        decision = plan.post

        async def post(execution: ToolExecution, result: Any, next_: Any) -> PostToolDecision:
            return decision

        location.on_post_execute(post)
    call = ToolCall("call", "tool", {"text": "hi"}, CancelSignal())
    result: ToolExecutionResult = run_sync(execute(location.catalog(), call))
    return result


def _assert_frozen_json(value: object) -> None:
    kind = type(value)
    if kind is FrozenDict:
        for key, item in value.items():  # type: ignore[attr-defined]
            assert type(key) is str
            _assert_frozen_json(key)
            _assert_frozen_json(item)
    elif kind is FrozenList:
        for item in value:  # type: ignore[attr-defined]
            _assert_frozen_json(item)
    elif kind is str:
        value.encode("utf-8")  # type: ignore[attr-defined]
    elif kind is int:
        assert NEGATIVE_INT_BOUND < value < INT_BOUND  # type: ignore[operator]
    elif kind is float:
        assert math.isfinite(value)  # type: ignore[arg-type]
    else:
        assert kind is bool or value is None, kind


def _assert_frozen_content(content: tuple[ContentBlock, ...]) -> None:
    assert type(content) is tuple
    for block in content:
        assert type(block) in typing.get_args(ContentBlock)
        for member in dataclasses.fields(block):
            value = getattr(block, member.name)
            if type(value) is str:
                value.encode("utf-8")
            else:
                _assert_frozen_json(value)


def _assert_frozen(result: ToolExecutionResult) -> None:
    _assert_frozen_content(result.content)
    _assert_frozen_json(result.meta)
    if isinstance(result, ToolExecutionSuccess):
        _assert_frozen_json(result.value)
        assert type(result.concludes_turn) is bool
    else:
        assert type(result.error) is ToolFailure
        assert type(result.error.info.code) is ErrorCode
        assert type(result.error.message) is str
        result.error.message.encode("utf-8")
        _assert_frozen_json(result.error.info.details)
    assert type(result.additional_contexts) is tuple
    for message in result.additional_contexts:
        assert type(message) is ContextMessage
        _assert_frozen_content(message.content)
        assert type(message.source) is str
        message.source.encode("utf-8")
        _assert_frozen_json(message.meta)


def _mutate_everything(root: object) -> None:
    """Change every dict and list reachable from `root` (what a hook still holds)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            stack.extend(item.values())
            item["mutated"] = True
        elif isinstance(item, list):
            stack.extend(item)
            item.append("mutated")
        elif isinstance(item, tuple):
            stack.extend(item)
        elif isinstance(item, ContextMessage):
            stack.extend((item.content, item.meta))
        elif isinstance(item, ToolExecutionSuccess | ToolExecutionFailure):
            stack.extend((item.content, item.meta, item.additional_contexts))
            stack.append(item.value if isinstance(item, ToolExecutionSuccess) else item.error)
        elif isinstance(item, ToolFailure):
            stack.append(item.info.details)
        elif isinstance(item, Accept | ReplaceContent | ReplaceValue | Block):
            stack.append(item.additional_contexts)
            stack.extend(getattr(item, name, None) for name in ("content", "value", "feedback"))


@given(PLANS)
def test_every_result_is_frozen_json_safe_durable_and_unshared(plan: Plan) -> None:
    result = _run(plan)
    assert type(result) in (ToolExecutionSuccess, ToolExecutionFailure)
    _assert_frozen(result)
    record = ToolResultRecord.of("call", result)
    wire = json.dumps(record.to_json(), allow_nan=False, ensure_ascii=False).encode("utf-8")
    assert ToolResultRecord.from_json(json.loads(wire)).unwrap() == record
    contexts = contexts_to_json(result.additional_contexts)
    assert contexts_from_json(contexts).unwrap() == result.additional_contexts
    before = repr(result)
    _mutate_everything(
        [plan.body, plan.deferred, plan.wrapper, plan.post, plan.meta, plan.finalize]
    )
    assert repr(result) == before
