"""Properties of durable records: every record and card survives JSON text exactly, and any
mutation of a valid wire form fails at (or above) the place that was changed."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Result, Success

from toolfx.core.json import (
    FrozenDict,
    FrozenJson,
    FrozenList,
    parse_json,
    snapshot_json,
    thaw_json,
)
from toolfx.core.records import (
    RecordError,
    SessionRecord,
    ToolApprovalRecord,
    ToolCallRecord,
    ToolCodeAnswerRecord,
    ToolCodeDispatchRecord,
    ToolResultRecord,
    call_view_from_json,
    call_view_to_json,
    content_from_json,
    content_to_json,
    context_from_json,
    context_to_json,
    contexts_from_json,
    contexts_to_json,
    durable_from_json,
    durable_to_json,
    failure_from_json,
    failure_to_json,
    record_from_json,
    result_view_from_json,
    result_view_to_json,
)
from toolfx.core.runtime import ApprovalReply, RejectedWithFeedback
from toolfx.core.tools import (
    AudioBlock,
    CodeCallCard,
    CodeResultCard,
    ContentBlock,
    ContextMessage,
    DiffCallCard,
    DiffResultCard,
    DurableResult,
    ErrorCode,
    FileDiff,
    FileLocation,
    GenericCallCard,
    GenericResultCard,
    ImageBlock,
    ReadFileLine,
    ReadResultCard,
    ResourceBlobBlock,
    ResourceLinkBlock,
    ResourceTextBlock,
    SearchMatch,
    SearchResultCard,
    TerminalCallCard,
    TerminalResultCard,
    TextBlock,
    ToolCallKind,
    ToolCallView,
    ToolFailure,
    ToolResultView,
    WebFetchResultCard,
    WebSearchResultCard,
    WebSource,
)

Segments = tuple[str | int, ...]

# ---------------------------------------------------------------------------------------------
# Strategies

texts = st.text(max_size=12) | st.sampled_from(["", "~", "/", "é", "😀", "\x00", '"'])
opt_texts = st.none() | texts
ints = st.integers() | st.integers(min_value=2**64, max_value=2**200)
opt_ints = st.none() | ints
floats = st.floats(allow_nan=False, allow_infinity=False)
_scalars = st.none() | st.booleans() | ints | floats | texts
plain_json: st.SearchStrategy[Any] = st.recursive(
    _scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(texts, children, max_size=3),
    max_leaves=8,
)
frozen_json: st.SearchStrategy[FrozenJson] = plain_json.map(lambda v: snapshot_json(v).unwrap())


def tuples(items: st.SearchStrategy[Any]) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.lists(items, max_size=3).map(tuple)


block_annotations = st.none() | frozen_json
blocks: st.SearchStrategy[ContentBlock] = st.one_of(
    st.builds(TextBlock, texts),
    st.builds(TextBlock, texts, block_annotations),
    st.builds(ImageBlock, texts, texts, block_annotations),
    st.builds(AudioBlock, texts, texts, block_annotations),
    st.builds(ResourceTextBlock, texts, texts, opt_texts, block_annotations),
    st.builds(ResourceBlobBlock, texts, texts, opt_texts, block_annotations),
    st.builds(
        ResourceLinkBlock,
        texts,
        texts,
        opt_texts,
        opt_texts,
        opt_texts,
        opt_ints,
        block_annotations,
    ),
)
contents = tuples(blocks)
failures = st.builds(ToolFailure.of, st.sampled_from(ErrorCode), texts, frozen_json)
contexts = st.builds(ContextMessage, contents, texts, frozen_json)
durables = st.builds(DurableResult, contents, st.none() | failures, frozen_json)

locations = tuples(st.builds(FileLocation, texts, opt_ints))
start_lines = st.none() | st.integers(min_value=1, max_value=10**9)
diffs = tuples(st.builds(FileDiff, texts, opt_texts, texts, start_lines))
seconds = st.none() | st.floats(min_value=0, max_value=1e9, allow_nan=False)
call_kinds: st.SearchStrategy[ToolCallKind | None] = st.none() | st.sampled_from(
    get_args(ToolCallKind)
)
call_views: st.SearchStrategy[ToolCallView] = st.one_of(
    st.builds(GenericCallCard, texts, call_kinds, frozen_json, opt_texts, locations),
    st.builds(TerminalCallCard, texts, opt_texts, opt_texts),
    st.builds(DiffCallCard, texts, diffs, locations),
    st.builds(CodeCallCard, texts, texts, opt_texts),
)
result_views: st.SearchStrategy[ToolResultView] = st.one_of(
    st.builds(GenericResultCard, opt_texts, opt_texts),
    st.builds(
        TerminalResultCard, opt_texts, opt_texts, opt_ints, opt_texts, seconds, st.booleans()
    ),
    st.builds(DiffResultCard, diffs, opt_texts),
    st.builds(
        SearchResultCard,
        st.sampled_from(["matches", "paths"]),
        st.booleans(),
        ints,
        tuples(texts),
        tuples(st.builds(SearchMatch, texts, ints, texts)),
        opt_texts,
    ),
    st.builds(
        ReadResultCard,
        texts,
        ints,
        tuples(st.builds(ReadFileLine, ints, texts)),
        ints,
        opt_texts,
        opt_texts,
        opt_texts,
    ),
    st.builds(
        WebSearchResultCard,
        tuples(st.builds(WebSource, texts, opt_texts)),
        st.booleans(),
        opt_texts,
        opt_texts,
    ),
    st.builds(WebFetchResultCard, texts, ints, st.booleans(), opt_texts),
    st.builds(CodeResultCard, ints, ints, opt_texts, opt_texts),
)
call_records = st.builds(
    ToolCallRecord, texts, texts, texts, frozen_json, opt_texts, opt_texts, opt_texts
)
result_records = st.builds(ToolResultRecord, texts, durables)
plain_replies: list[ApprovalReply] = [
    "allowed-once",
    "allowed-always",
    "rejected",
    "cancelled",
    "unavailable",
    "deferred",
]
replies = st.sampled_from(plain_replies) | st.builds(RejectedWithFeedback, texts)
approval_records = st.builds(
    ToolApprovalRecord, texts, texts, tuples(texts), opt_texts, replies, tuples(texts)
)
code_dispatch_records = st.builds(
    ToolCodeDispatchRecord, texts, texts, texts, st.booleans(), contents
)
code_answer_records = st.builds(ToolCodeAnswerRecord, texts, frozen_json) | st.builds(
    ToolCodeAnswerRecord, texts, st.none(), failures
)
session_records: st.SearchStrategy[SessionRecord] = st.one_of(
    call_records, approval_records, result_records, code_dispatch_records, code_answer_records
)


@dataclass(frozen=True)
class Codec:
    """One wire codec under test: its encoder, its reader and values to try."""

    name: str
    encode: Callable[[Any], FrozenJson]
    read: Callable[[object], Result[Any, RecordError]]
    values: st.SearchStrategy[Any]


CODECS: Final = [
    Codec("content", content_to_json, content_from_json, contents),
    Codec("failure", failure_to_json, failure_from_json, failures),
    Codec("context", context_to_json, context_from_json, contexts),
    Codec("contexts", contexts_to_json, contexts_from_json, tuples(contexts)),
    Codec("durable", durable_to_json, durable_from_json, durables),
    Codec("call_view", call_view_to_json, call_view_from_json, call_views),
    Codec("result_view", result_view_to_json, result_view_from_json, result_views),
    Codec("call_record", ToolCallRecord.to_json, ToolCallRecord.from_json, call_records),
    Codec("result_record", ToolResultRecord.to_json, ToolResultRecord.from_json, result_records),
    Codec(
        "approval_record",
        ToolApprovalRecord.to_json,
        ToolApprovalRecord.from_json,
        approval_records,
    ),
    Codec(
        "code_dispatch_record",
        ToolCodeDispatchRecord.to_json,
        ToolCodeDispatchRecord.from_json,
        code_dispatch_records,
    ),
    Codec(
        "code_answer_record",
        ToolCodeAnswerRecord.to_json,
        ToolCodeAnswerRecord.from_json,
        code_answer_records,
    ),
    Codec("record", lambda record: record.to_json(), record_from_json, session_records),
]
codecs = st.sampled_from(CODECS)


# ---------------------------------------------------------------------------------------------
# Round trips


def deep_frozen(value: object) -> bool:
    if isinstance(value, dict):
        return type(value) is FrozenDict and all(deep_frozen(v) for v in value.values())
    if isinstance(value, list):
        return type(value) is FrozenList and all(deep_frozen(v) for v in value)
    return True


Trip = tuple[Callable[[Any], FrozenJson], Callable[[object], Result[Any, RecordError]], Any]


def durable_trips(result: DurableResult) -> list[Trip]:
    trips: list[Trip] = [
        (durable_to_json, durable_from_json, result),
        (content_to_json, content_from_json, result.content),
    ]
    if result.error is not None:
        trips.append((failure_to_json, failure_from_json, result.error))
    return trips


def context_trips(messages: tuple[ContextMessage, ...]) -> list[Trip]:
    trips: list[Trip] = [(contexts_to_json, contexts_from_json, messages)]
    return trips + [(context_to_json, context_from_json, message) for message in messages]


def call_record_trips(record: ToolCallRecord) -> list[Trip]:
    return [
        (ToolCallRecord.to_json, ToolCallRecord.from_json, record),
        (ToolCallRecord.to_json, record_from_json, record),
    ]


def result_record_trips(record: ToolResultRecord) -> list[Trip]:
    return [
        (ToolResultRecord.to_json, ToolResultRecord.from_json, record),
        (ToolResultRecord.to_json, record_from_json, record),
        *durable_trips(record.result),
    ]


ROUND_TRIPS: Final[list[tuple[str, st.SearchStrategy[Any], Callable[[Any], list[Trip]]]]] = [
    ("durable_content_failure", durables, durable_trips),
    ("failure", failures, lambda failure: [(failure_to_json, failure_from_json, failure)]),
    ("contexts", tuples(contexts), context_trips),
    ("call_view", call_views, lambda view: [(call_view_to_json, call_view_from_json, view)]),
    (
        "result_view",
        result_views,
        lambda view: [(result_view_to_json, result_view_from_json, view)],
    ),
    ("call_record", call_records, call_record_trips),
    ("result_record", result_records, result_record_trips),
    (
        "approval_record",
        approval_records,
        lambda record: [
            (ToolApprovalRecord.to_json, ToolApprovalRecord.from_json, record),
            (ToolApprovalRecord.to_json, record_from_json, record),
        ],
    ),
    (
        "code_dispatch_record",
        code_dispatch_records,
        lambda record: [
            (ToolCodeDispatchRecord.to_json, ToolCodeDispatchRecord.from_json, record),
            (ToolCodeDispatchRecord.to_json, record_from_json, record),
        ],
    ),
    (
        "code_answer_record",
        code_answer_records,
        lambda record: [
            (ToolCodeAnswerRecord.to_json, ToolCodeAnswerRecord.from_json, record),
            (ToolCodeAnswerRecord.to_json, record_from_json, record),
        ],
    ),
]


@pytest.mark.parametrize(
    ("values", "trips"),
    [(values, trips) for _, values, trips in ROUND_TRIPS],
    ids=[name for name, _, _ in ROUND_TRIPS],
)
@given(data=st.data())
def test_every_value_survives_json_text_exactly(
    values: st.SearchStrategy[Any], trips: Callable[[Any], list[Trip]], data: st.DataObject
) -> None:
    for encode, read, value in trips(data.draw(values)):
        encoded = encode(value)
        assert deep_frozen(encoded)
        text = json.dumps(encoded)
        assert read(parse_json(text).unwrap()) == Success(value)
        assert read(json.loads(text)) == Success(value)
        assert encode(value) == encoded  # deterministic


# ---------------------------------------------------------------------------------------------
# Mutations of valid wire forms

FREE_FORM: Final = frozenset({"meta", "details", "arguments", "rawInput", "annotations", "value"})
"""Keys whose value is any JSON: nothing under them is checked beyond being JSON."""
TAG_KEYS: Final = frozenset({"type", "card", "kind", "event", "shape", "code", "reply"})
"""Keys whose string value is one of a closed set."""
OPTIONAL_KEYS: Final = frozenset(
    {"meta", "details", "error", "agent", "parentCallId", "kind", "rawInput", "content"}
    | {"locations", "line", "description", "cwd", "title", "output", "exitCode", "signal"}
    | {"paths", "matches", "lang", "answer", "reason", "feedback"}
    | {"annotations", "mediaType", "size", "argumentsHash", "always"}
    | {"startLine", "duration", "timedOut"}
)
"""Every key that is optional somewhere (dropping it may give another valid value)."""


def checked_positions(value: Any, path: Segments = ()) -> Iterator[tuple[Segments, Any]]:
    """Every place whose value the reader checks (free-form JSON fields excluded)."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in FREE_FORM:
                yield from checked_positions(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from checked_positions(item, (*path, index))


def at(value: Any, path: Segments) -> Any:
    for segment in path:
        value = value[segment]
    return value


def segments_of(pointer: str) -> list[str]:
    if not pointer:
        return []
    return [s.replace("~1", "/").replace("~0", "~") for s in pointer[1:].split("/")]


def at_or_above(error: RecordError, place: Segments) -> bool:
    found = segments_of(error.path)
    return found == [str(s) for s in place[: len(found)]]


def wrong_kind(value: Any) -> Any:
    """A value of another JSON kind than `value`, accepted by no checked place that held it."""
    if isinstance(value, bool):
        return "true"
    if isinstance(value, int):
        return str(value)
    if value is None:  # a string or an integer may be the place's other kind
        return True
    if isinstance(value, str):
        return 3
    if isinstance(value, list):
        return {"0": value}
    return [value]


@pytest.mark.parametrize("mutation", ["drop", "retype", "retag", "extra"])
@given(codec=codecs, data=st.data())
def test_mutations_fail_at_or_above_the_changed_place(
    mutation: str, codec: Codec, data: st.DataObject
) -> None:
    original = data.draw(codec.values)
    plain = thaw_json(codec.encode(original))
    positions = list(checked_positions(plain))
    mutated = copy.deepcopy(plain)
    objects = [(path, v) for path, v in positions if isinstance(v, dict) and v]
    if mutation == "drop" and objects:
        path, obj = data.draw(st.sampled_from(objects))
        key = data.draw(st.sampled_from(sorted(obj)))
        del at(mutated, path)[key]
        result = codec.read(mutated)
        place: Segments = (*path, key)
        if isinstance(result, Success):  # only an optional key, and the value changed
            assert key in OPTIONAL_KEYS
            assert result != Success(original)
        else:
            assert at_or_above(result.failure(), place), (result, place)
        return
    if mutation == "retag":
        tags = [
            (path, v)
            for path, v in positions
            if path
            and path[-1] in TAG_KEYS
            and isinstance(v, str)
            and not program_text(plain, path)
        ]
        if tags:
            place, _ = data.draw(st.sampled_from(tags))
            at(mutated, place[:-1])[place[-1]] = "no-such-tag"
            assert_fails_exactly_at(codec.read(mutated), place)
            return
    if mutation == "extra":
        holders = [(path, v) for path, v in positions if isinstance(v, dict)]
        if holders:
            path, _ = data.draw(st.sampled_from(holders))
            at(mutated, path)["extraKey"] = None
            assert_fails_exactly_at(codec.read(mutated), (*path, "extraKey"))
            return
    # retype, and the fallback when the value has no place for the mutation drawn
    place, value = data.draw(st.sampled_from(positions))
    if place:
        at(mutated, place[:-1])[place[-1]] = wrong_kind(value)
    else:
        mutated = wrong_kind(value)
    assert_fails_exactly_at(codec.read(mutated), place)


def program_text(plain: Any, path: Segments) -> bool:
    """Whether `path` is a code card's program (`code`, free text), not a failure's code."""
    return path[-1] == "code" and at(plain, path[:-1]).get("card") == "code"


def assert_fails_exactly_at(result: Result[Any, RecordError], place: Segments) -> None:
    assert isinstance(result, Failure), (result, place)
    error: RecordError = result.failure()
    assert segments_of(error.path) == [str(s) for s in place], (error, place)
    assert at_or_above(error, place)
