"""Durable records by example: the wire form of every record and card, and every error path."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from returns.result import Failure, Result, Success

from toolfx.core.json import FrozenDict, FrozenJson, FrozenList, parse_json, snapshot_json
from toolfx.core.records import (
    RecordError,
    ToolCallRecord,
    ToolCodeAnswerRecord,
    ToolResultRecord,
    arguments_digest,
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
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import (
    AudioBlock,
    CodeCallCard,
    CodeResultCard,
    ContextMessage,
    DiffCallCard,
    DiffResultCard,
    DurableResult,
    ErrorCode,
    ExecutionToken,
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
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolFailure,
    WebFetchResultCard,
    WebSearchResultCard,
    WebSource,
)

Reader = Callable[[object], Result[Any, RecordError]]


def frozen(value: object) -> FrozenJson:
    result: FrozenJson = snapshot_json(value).unwrap()
    return result


def assert_deep_frozen(value: object) -> None:
    if isinstance(value, dict):
        assert type(value) is FrozenDict
        for item in value.values():
            assert_deep_frozen(item)
    elif isinstance(value, list):
        assert type(value) is FrozenList
        for item in value:
            assert_deep_frozen(item)


def check_wire(encoded: FrozenJson, expected: object, read: Reader, value: object) -> None:
    """`encoded` is the expected wire form, deep-frozen, and reads back through JSON text."""
    assert encoded == expected
    assert json.dumps(encoded) == json.dumps(expected)  # key order too
    assert_deep_frozen(encoded)
    assert read(parse_json(json.dumps(encoded)).unwrap()) == Success(value)
    assert read(expected) == Success(value)  # plain dicts, as json.loads gives them


def error_of(result: Result[Any, RecordError]) -> tuple[str, str]:
    assert isinstance(result, Failure), result
    error: RecordError = result.failure()
    return (error.path, error.reason)


# ---------------------------------------------------------------------------------------------
# Content, failures, contexts, durable results


def test_content_blocks_have_a_type_tag_and_camel_case_fields() -> None:
    blocks = (TextBlock("hi"), ImageBlock("iVBOR", "image/png"))
    expected = [
        {"type": "text", "text": "hi"},
        {"type": "image", "data": "iVBOR", "mediaType": "image/png"},
    ]
    check_wire(content_to_json(blocks), expected, content_from_json, blocks)
    check_wire(content_to_json(()), [], content_from_json, ())


def test_every_mcp_content_kind_round_trips_with_its_annotations() -> None:
    audience = frozen({"audience": ["user"], "priority": 0.5})
    blocks = (
        TextBlock("hi", audience),
        ImageBlock("iVBOR", "image/png", audience),
        AudioBlock("UklG", "audio/wav"),
        ResourceTextBlock("file:///a.txt", "body", "text/plain", audience),
        ResourceBlobBlock("file:///a.bin", "AAEC"),
        ResourceLinkBlock("file:///big", "big", "Big", "a big file", "text/csv", 12, audience),
    )
    annotated = {"annotations": {"audience": ["user"], "priority": 0.5}}
    expected = [
        {"type": "text", "text": "hi", **annotated},
        {"type": "image", "data": "iVBOR", "mediaType": "image/png", **annotated},
        {"type": "audio", "data": "UklG", "mediaType": "audio/wav"},
        {
            "type": "resource_text",
            "uri": "file:///a.txt",
            "text": "body",
            "mediaType": "text/plain",
            **annotated,
        },
        {"type": "resource_blob", "uri": "file:///a.bin", "blob": "AAEC"},
        {
            "type": "resource_link",
            "uri": "file:///big",
            "name": "big",
            "title": "Big",
            "description": "a big file",
            "mediaType": "text/csv",
            "size": 12,
            **annotated,
        },
    ]
    check_wire(content_to_json(blocks), expected, content_from_json, blocks)


@pytest.mark.parametrize(
    ("value", "path", "reason"),
    [
        ({"type": "text"}, "", "expected array, found object with 1 key"),
        ([None], "/0", "expected object, found null"),
        ([{"text": "a"}], "/0", "missing required key 'type'"),
        ([{"type": 3}], "/0/type", "expected string, found integer 3"),
        (
            [{"type": "text", "text": "a"}, {"type": "video"}],
            "/1/type",
            "unknown block type 'video'",
        ),
        ([{"type": "text"}], "/0", "missing required key 'text'"),
        ([{"type": "text", "text": True}], "/0/text", "expected string, found boolean true"),
        ([{"type": "text", "text": "a", "extra": 1}], "/0/extra", "unexpected key 'extra'"),
        (
            [{"type": "image", "data": "x", "media_type": "a"}],
            "/0/media_type",
            "unexpected key 'media_type' (did you mean 'mediaType'?)",
        ),
        ([{"type": "image", "data": "x"}], "/0", "missing required key 'mediaType'"),
        (
            [{"type": "audio", "data": "x", "mediaType": 1}],
            "/0/mediaType",
            "expected string, found integer 1",
        ),
        ([{"type": "resource_link", "uri": "u"}], "/0", "missing required key 'name'"),
        (
            [{"type": "resource_link", "uri": "u", "name": "n", "size": "3"}],
            "/0/size",
            'expected integer, found string "3"',
        ),
        ([{"type": "resource_text", "uri": "u", "blob": "x"}], "/0/blob", "unexpected key 'blob'"),
        (
            [{"type": "text", "text": "\ud800"}],
            "/0/text",
            "the string holds a lone surrogate (\\ud800)",
        ),
        ([{"type": "text", 1: "a"}], "/0", "object key 1 is not a string"),
        (({"type": "text", "text": "a"},), "", "expected array, found a tuple, which is not JSON"),
        ({1, 2}, "", "expected array, found a set, which is not JSON"),
    ],
)
def test_content_errors_name_the_place_and_the_reason(
    value: object, path: str, reason: str
) -> None:
    assert error_of(content_from_json(value)) == (path, reason)


def test_failures_carry_message_code_and_details_when_present() -> None:
    bare = ToolFailure.of(ErrorCode.DENIED, "no")
    check_wire(failure_to_json(bare), {"message": "no", "code": "DENIED"}, failure_from_json, bare)
    detailed = ToolFailure.of(ErrorCode.INVALID_ARGS, "bad", frozen({"at": ["/x", 1.5]}))
    expected = {"message": "bad", "code": "INVALID_ARGS", "details": {"at": ["/x", 1.5]}}
    check_wire(failure_to_json(detailed), expected, failure_from_json, detailed)


def test_failure_details_null_reads_as_no_details() -> None:
    value = {"message": "m", "code": "ABORTED", "details": None}
    assert failure_from_json(value) == Success(ToolFailure.of(ErrorCode.ABORTED, "m"))


@pytest.mark.parametrize(
    ("value", "path", "reason"),
    [
        ("oops", "", 'expected object, found string "oops"'),
        ({"code": "DENIED"}, "", "missing required key 'message'"),
        ({"message": "m", "code": "NOPE"}, "/code", "unknown error code 'NOPE'"),
        ({"message": "m", "code": 7}, "/code", "expected string, found integer 7"),
        ({"message": "m", "code": "DENIED", "info": {}}, "/info", "unexpected key 'info'"),
        (
            {"message": "m", "code": "DENIED", "details": [float("inf")]},
            "/details/0",
            "inf is not a finite number",
        ),
    ],
)
def test_failure_errors(value: object, path: str, reason: str) -> None:
    assert error_of(failure_from_json(value)) == (path, reason)


def test_context_messages_carry_content_source_and_meta() -> None:
    plain = ContextMessage((TextBlock("note"),), "plugin:x")
    with_meta = ContextMessage((), "s", frozen({"k": [1]}))
    check_wire(
        context_to_json(plain),
        {"content": [{"type": "text", "text": "note"}], "source": "plugin:x"},
        context_from_json,
        plain,
    )
    expected = [
        {"content": [{"type": "text", "text": "note"}], "source": "plugin:x"},
        {"content": [], "source": "s", "meta": {"k": [1]}},
    ]
    check_wire(
        contexts_to_json((plain, with_meta)), expected, contexts_from_json, (plain, with_meta)
    )


@pytest.mark.parametrize(
    ("value", "path", "reason"),
    [
        (
            [{"content": [], "source": "s"}, {"content": [{"type": 1}], "source": "s"}],
            "/1/content/0/type",
            "expected string, found integer 1",
        ),
        ([{"content": []}], "/0", "missing required key 'source'"),
        ([{"content": [], "source": None}], "/0/source", "expected string, found null"),
    ],
)
def test_context_errors(value: object, path: str, reason: str) -> None:
    assert error_of(contexts_from_json(value)) == (path, reason)
    assert isinstance(context_from_json(value), Failure)


def test_durable_results_keep_content_error_and_meta_never_the_value() -> None:
    success = ToolExecutionSuccess(frozen({"secret": 1}), (TextBlock("ok"),), frozen({"m": True}))
    durable = DurableResult.of(success)
    expected = {"content": [{"type": "text", "text": "ok"}], "isError": False, "meta": {"m": True}}
    check_wire(durable_to_json(durable), expected, durable_from_json, durable)

    failed = DurableResult.of(
        ToolExecutionFailure(ToolFailure.of(ErrorCode.TOOL_TIMEOUT, "slow"), (TextBlock("t"),))
    )
    expected = {
        "content": [{"type": "text", "text": "t"}],
        "isError": True,
        "error": {"message": "slow", "code": "TOOL_TIMEOUT"},
    }
    check_wire(durable_to_json(failed), expected, durable_from_json, failed)


def test_durable_meta_null_reads_as_no_meta() -> None:
    value = {"content": [], "isError": False, "meta": None}
    assert durable_from_json(value) == Success(DurableResult(()))


@pytest.mark.parametrize(
    ("value", "path", "reason"),
    [
        (
            {"content": [], "isError": True},
            "",
            "missing key 'error', required when isError is true",
        ),
        (
            {"content": [], "isError": False, "error": {"message": "m", "code": "DENIED"}},
            "",
            "unexpected key 'error' when isError is false",
        ),
        (
            {"content": [], "isError": True, "error": {"message": "m", "code": "BAD"}},
            "/error/code",
            "unknown error code 'BAD'",
        ),
        ({"content": [], "isError": 0}, "/isError", "expected boolean, found integer 0"),
        (
            {"content": [], "is_error": False},
            "/is_error",
            "unexpected key 'is_error' (did you mean 'isError'?)",
        ),
        ({"isError": False}, "", "missing required key 'content'"),
        ({"content": [], "isError": False, "value": 1}, "/value", "unexpected key 'value'"),
    ],
)
def test_durable_errors(value: object, path: str, reason: str) -> None:
    assert error_of(durable_from_json(value)) == (path, reason)


def test_encoding_a_field_that_is_not_json_raises() -> None:
    with pytest.raises(ValueError, match=r"not a finite number at /meta/0"):
        durable_to_json(DurableResult((), None, [float("nan")]))
    with pytest.raises(ValueError, match="lone surrogate"):
        content_to_json((TextBlock("\udc00"),))


def test_record_error_prints_its_place() -> None:
    assert str(RecordError("/a/0", "bad")) == "bad at /a/0"
    assert str(RecordError("", "bad")) == "bad at the root"


# ---------------------------------------------------------------------------------------------
# Session events


def test_call_records_are_written_from_an_execution() -> None:
    execution = ToolExecution(
        call_id="c2",
        root_call_id="c1",
        name="read",
        arguments=frozen({"path": "a.txt"}),
        agent="main",
        token=ExecutionToken(),
        signal=CancelSignal(),
        parent=ExecutionToken(),
    )
    record = ToolCallRecord.of(execution, parent_call_id="c1")
    assert record == ToolCallRecord("c2", "c1", "read", {"path": "a.txt"}, "main", "c1")
    assert record.event == "tool/call"
    expected = {
        "event": "tool/call",
        "callId": "c2",
        "rootCallId": "c1",
        "name": "read",
        "arguments": {"path": "a.txt"},
        "agent": "main",
        "parentCallId": "c1",
    }
    check_wire(record.to_json(), expected, ToolCallRecord.from_json, record)
    check_wire(record.to_json(), expected, record_from_json, record)


def test_call_records_omit_agent_and_parent_when_absent() -> None:
    record = ToolCallRecord("c", "c", "ls", None)
    expected = {
        "event": "tool/call",
        "callId": "c",
        "rootCallId": "c",
        "name": "ls",
        "arguments": None,
    }
    check_wire(record.to_json(), expected, ToolCallRecord.from_json, record)


def test_call_records_carry_the_arguments_hash_when_given() -> None:
    digest = arguments_digest(frozen({"path": "a.txt"}))
    record = ToolCallRecord("c", "c", "read", frozen({"path": "a.txt"}), None, None, digest)
    expected = {
        "event": "tool/call",
        "callId": "c",
        "rootCallId": "c",
        "name": "read",
        "arguments": {"path": "a.txt"},
        "argumentsHash": digest,
    }
    check_wire(record.to_json(), expected, record_from_json, record)


def test_the_arguments_digest_tells_json_kinds_apart_and_ignores_key_order() -> None:
    assert arguments_digest(frozen({"a": 1, "b": 2})) == arguments_digest(frozen({"b": 2, "a": 1}))
    digests = {arguments_digest(frozen(v)) for v in (1, 1.0, True, "1", [1], {"1": 1}, None)}
    assert len(digests) == 7
    assert all(len(d) == 64 and int(d, 16) >= 0 for d in digests)  # SHA-256, hex


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (
            ToolExecutionSuccess(frozen({"n": [1]}), (TextBlock("n: 1"),)),
            {"event": "tool/code-answer", "callId": "c", "value": {"n": [1]}},
        ),
        (
            ToolExecutionSuccess(None, ()),
            {"event": "tool/code-answer", "callId": "c", "value": None},
        ),
        (
            ToolExecutionFailure(ToolFailure.of(ErrorCode.DENIED, "no", frozen({"k": 1})), ()),
            {
                "event": "tool/code-answer",
                "callId": "c",
                "error": {"message": "no", "code": "DENIED", "details": {"k": 1}},
            },
        ),
    ],
    ids=["value", "null-value", "error"],
)
def test_code_answer_records_keep_the_value_or_the_failure(
    result: ToolExecutionResult, expected: dict[str, object]
) -> None:
    record = ToolCodeAnswerRecord.of("c", result)
    assert record.event == "tool/code-answer"
    check_wire(record.to_json(), expected, ToolCodeAnswerRecord.from_json, record)
    check_wire(record.to_json(), expected, record_from_json, record)


def test_result_records_keep_the_durable_projection() -> None:
    live = ToolExecutionSuccess(frozen([1, 2]), (TextBlock("2 items"),))
    record = ToolResultRecord.of("c", live)
    assert record == ToolResultRecord("c", DurableResult((TextBlock("2 items"),)))
    assert record.event == "tool/result"
    expected = {
        "event": "tool/result",
        "callId": "c",
        "result": {"content": [{"type": "text", "text": "2 items"}], "isError": False},
    }
    check_wire(record.to_json(), expected, ToolResultRecord.from_json, record)
    check_wire(record.to_json(), expected, record_from_json, record)


_CALL = {"event": "tool/call", "callId": "c", "rootCallId": "c", "name": "n", "arguments": {}}
_RESULT = {"event": "tool/result", "callId": "c", "result": {"content": [], "isError": False}}
_ANSWER = {"event": "tool/code-answer", "callId": "c"}
_DENIED = {"message": "m", "code": "DENIED"}


@pytest.mark.parametrize(
    ("read", "value", "path", "reason"),
    [
        (
            ToolCallRecord.from_json,
            _RESULT,
            "/event",
            "expected event 'tool/call', found 'tool/result'",
        ),
        (
            ToolResultRecord.from_json,
            _CALL,
            "/event",
            "expected event 'tool/result', found 'tool/call'",
        ),
        (
            record_from_json,
            {**_CALL, "event": "tool/progress"},
            "/event",
            "unknown event 'tool/progress'",
        ),
        (record_from_json, {"callId": "c"}, "", "missing required key 'event'"),
        (record_from_json, [], "", "expected object, found empty array"),
        (record_from_json, {**_CALL, "agent": None}, "/agent", "expected string, found null"),
        (
            record_from_json,
            {**_CALL, "call_id": "c"},
            "/call_id",
            "unexpected key 'call_id' (did you mean 'callId'?)",
        ),
        (
            record_from_json,
            {**_CALL, "arguments": {"x": [float("nan")]}},
            "/arguments/x/0",
            "nan is not a finite number",
        ),
        (
            record_from_json,
            {**_RESULT, "result": {"content": [{"type": "x"}], "isError": False}},
            "/result/content/0/type",
            "unknown block type 'x'",
        ),
        (
            record_from_json,
            {"event": "tool/result", "callId": "c"},
            "",
            "missing required key 'result'",
        ),
        (
            record_from_json,
            {**_CALL, "argumentsHash": 3},
            "/argumentsHash",
            "expected string, found integer 3",
        ),
        (
            record_from_json,
            {**_CALL, "argumentsHash": None},
            "/argumentsHash",
            "expected string, found null",
        ),
        (
            record_from_json,
            {**_ANSWER, "value": 1, "error": _DENIED},
            "",
            "expected exactly one of the keys 'value' and 'error'",
        ),
        (record_from_json, _ANSWER, "", "expected exactly one of the keys 'value' and 'error'"),
        (record_from_json, {**_ANSWER, "error": None}, "/error", "expected object, found null"),
        (
            record_from_json,
            {**_ANSWER, "error": {"message": "m"}},
            "/error",
            "missing required key 'code'",
        ),
        (
            ToolCodeAnswerRecord.from_json,
            {**_RESULT, "value": 1},
            "/event",
            "expected event 'tool/code-answer', found 'tool/result'",
        ),
        (
            record_from_json,
            {**_ANSWER, "value": [float("inf")]},
            "/value/0",
            "inf is not a finite number",
        ),
    ],
)
def test_record_errors(read: Reader, value: object, path: str, reason: str) -> None:
    assert error_of(read(value)) == (path, reason)


@pytest.mark.parametrize(
    "value", [object(), None, 1.5, "x", b"{}", {"event": b"tool/call"}, {("k",): 1}, [[[]]]]
)
def test_readers_never_raise_on_foreign_values(value: object) -> None:
    for read in (
        content_from_json,
        failure_from_json,
        context_from_json,
        contexts_from_json,
        durable_from_json,
        call_view_from_json,
        result_view_from_json,
        record_from_json,
    ):
        assert isinstance(read(value), Failure)


def test_self_referencing_json_fields_are_reported_not_raised() -> None:
    cycle: list[object] = []
    cycle.append(cycle)
    path, reason = error_of(durable_from_json({"content": [], "isError": False, "meta": cycle}))
    assert path == "/meta/0"
    assert "cycle" in reason


# ---------------------------------------------------------------------------------------------
# Cards

_LOC = FileLocation("a.py", 3)
_DIFF = FileDiff("a.py", None, "x = 1\n")

CALL_CARDS: list[tuple[object, dict[str, object]]] = [
    (GenericCallCard("Run"), {"card": "generic", "title": "Run"}),
    (
        GenericCallCard("Read", "read", frozen({"p": [1]}), "body", (_LOC, FileLocation("b"))),
        {
            "card": "generic",
            "title": "Read",
            "kind": "read",
            "rawInput": {"p": [1]},
            "content": "body",
            "locations": [{"path": "a.py", "line": 3}, {"path": "b"}],
        },
    ),
    (TerminalCallCard("ls"), {"card": "terminal", "title": "ls"}),
    (
        TerminalCallCard("ls", "list", "/w"),
        {"card": "terminal", "title": "ls", "description": "list", "cwd": "/w"},
    ),
    (
        DiffCallCard("Write", (_DIFF, FileDiff("b", "o", "n")), (_LOC,)),
        {
            "card": "diff",
            "title": "Write",
            "diffs": [
                {"path": "a.py", "oldText": None, "newText": "x = 1\n"},
                {"path": "b", "oldText": "o", "newText": "n"},
            ],
            "locations": [{"path": "a.py", "line": 3}],
        },
    ),
    (
        DiffCallCard("Edit", (FileDiff("a", "o", "n", 13), FileDiff("b", "o", "n", None))),
        {
            "card": "diff",
            "title": "Edit",
            "diffs": [
                {"path": "a", "oldText": "o", "newText": "n", "startLine": 13},
                {"path": "b", "oldText": "o", "newText": "n", "startLine": None},
            ],
        },
    ),
    (CodeCallCard("Run", "1 + 1"), {"card": "code", "title": "Run", "code": "1 + 1"}),
    (
        CodeCallCard("Run", "x = 1\nx", "python"),
        {"card": "code", "title": "Run", "code": "x = 1\nx", "lang": "python"},
    ),
]

RESULT_CARDS: list[tuple[object, dict[str, object]]] = [
    (GenericResultCard(), {"card": "generic"}),
    (GenericResultCard("t", "c"), {"card": "generic", "title": "t", "content": "c"}),
    (TerminalResultCard(), {"card": "terminal"}),
    (
        TerminalResultCard("t", "out", -1, "SIGKILL"),
        {"card": "terminal", "title": "t", "output": "out", "exitCode": -1, "signal": "SIGKILL"},
    ),
    (
        TerminalResultCard("t", "", 0, None, 2.5, timed_out=True),
        {
            "card": "terminal",
            "title": "t",
            "output": "",
            "exitCode": 0,
            "duration": 2.5,
            "timedOut": True,
        },
    ),
    (DiffResultCard(()), {"card": "diff", "diffs": []}),
    (
        DiffResultCard((_DIFF,), "Edit"),
        {
            "card": "diff",
            "title": "Edit",
            "diffs": [{"path": "a.py", "oldText": None, "newText": "x = 1\n"}],
        },
    ),
    (
        SearchResultCard("paths", False, 2, ("a", "b")),
        {"card": "search", "shape": "paths", "truncated": False, "total": 2, "paths": ["a", "b"]},
    ),
    (
        SearchResultCard("matches", True, 9, (), (SearchMatch("a", 1, "x"),), "grep"),
        {
            "card": "search",
            "title": "grep",
            "shape": "matches",
            "truncated": True,
            "total": 9,
            "matches": [{"path": "a", "line": 1, "text": "x"}],
        },
    ),
    (
        ReadResultCard("a.py", 5, (), 4),
        {"card": "read", "path": "a.py", "offset": 5, "lines": [], "totalLines": 4},
    ),
    (
        ReadResultCard("a.py", 1, (ReadFileLine(1, "x"),), 1, "Read", "python", "x"),
        {
            "card": "read",
            "title": "Read",
            "path": "a.py",
            "offset": 1,
            "lines": [{"number": 1, "text": "x"}],
            "totalLines": 1,
            "lang": "python",
            "content": "x",
        },
    ),
    (
        WebSearchResultCard(
            (WebSource("https://a"), WebSource("https://b", "B")), False, "42", "q"
        ),
        {
            "card": "web",
            "kind": "search",
            "title": "q",
            "sources": [{"url": "https://a"}, {"url": "https://b", "title": "B"}],
            "answer": "42",
            "truncated": False,
        },
    ),
    (
        WebFetchResultCard("https://a", 404, True),
        {"card": "web", "kind": "fetch", "url": "https://a", "statusCode": 404, "truncated": True},
    ),
    (CodeResultCard(0, 0), {"card": "code", "calls": 0, "failed": 0}),
    (
        CodeResultCard(3, 1, "3 tool calls, 1 failed", "[1, 2]"),
        {
            "card": "code",
            "title": "3 tool calls, 1 failed",
            "calls": 3,
            "failed": 1,
            "content": "[1, 2]",
        },
    ),
]


@pytest.mark.parametrize(("card", "expected"), CALL_CARDS)
def test_call_cards_on_the_wire(card: Any, expected: dict[str, object]) -> None:
    check_wire(call_view_to_json(card), expected, call_view_from_json, card)


@pytest.mark.parametrize(("card", "expected"), RESULT_CARDS)
def test_result_cards_on_the_wire(card: Any, expected: dict[str, object]) -> None:
    check_wire(result_view_to_json(card), expected, result_view_from_json, card)


def test_generic_raw_input_null_reads_as_none() -> None:
    value = {"card": "generic", "title": "t", "rawInput": None}
    assert call_view_from_json(value) == Success(GenericCallCard("t"))


@pytest.mark.parametrize(
    ("value", "path", "reason"),
    [
        ({"card": "read", "path": "a"}, "/card", "unknown call card 'read'"),
        ({"title": "t"}, "", "missing required key 'card'"),
        ({"card": "generic", "title": "t", "kind": "paint"}, "/kind", "unknown call kind 'paint'"),
        (
            {"card": "generic", "title": "t", "raw_input": 1},
            "/raw_input",
            "unexpected key 'raw_input' (did you mean 'rawInput'?)",
        ),
        ({"card": "generic", "title": None}, "/title", "expected string, found null"),
        (
            {"card": "generic", "title": "t", "locations": [{"path": "a", "line": 1.0}]},
            "/locations/0/line",
            "expected integer, found number 1.0",
        ),
        ({"card": "terminal", "title": "t", "cwd": None}, "/cwd", "expected string, found null"),
        (
            {"card": "diff", "title": "t", "diffs": [{"path": "a", "newText": "n"}]},
            "/diffs/0",
            "missing required key 'oldText'",
        ),
        (
            {"card": "diff", "title": "t", "diffs": [{"path": "a", "oldText": 1, "newText": "n"}]},
            "/diffs/0/oldText",
            "expected string, found integer 1",
        ),
        ({"card": "diff", "title": "t"}, "", "missing required key 'diffs'"),
        (
            {
                "card": "diff",
                "title": "t",
                "diffs": [{"path": "a", "oldText": "o", "newText": "n", "startLine": 0}],
            },
            "/diffs/0/startLine",
            "a diff's first line is numbered from 1, not 0",
        ),
        ({"card": "code", "title": "t"}, "", "missing required key 'code'"),
        (
            {"card": "code", "title": "t", "code": "x", "lang": None},
            "/lang",
            "expected string, found null",
        ),
        ({"card": "code", "title": "t", "code": "x", "args": []}, "/args", "unexpected key 'args'"),
    ],
)
def test_call_card_errors(value: object, path: str, reason: str) -> None:
    assert error_of(call_view_from_json(value)) == (path, reason)


@pytest.mark.parametrize(
    ("value", "path", "reason"),
    [
        ({"card": "video"}, "/card", "unknown result card 'video'"),
        ({"card": "web", "url": "u"}, "", "missing required key 'kind'"),
        ({"card": "web", "kind": "crawl"}, "/kind", "unknown web card kind 'crawl'"),
        (
            {"card": "terminal", "exitCode": True},
            "/exitCode",
            "expected integer, found boolean true",
        ),
        (
            {"card": "terminal", "exit_code": 1},
            "/exit_code",
            "unexpected key 'exit_code' (did you mean 'exitCode'?)",
        ),
        (
            {"card": "terminal", "duration": -1},
            "/duration",
            "expected a finite, non-negative number of seconds, found -1",
        ),
        (
            {"card": "terminal", "duration": "2s"},
            "/duration",
            'expected number of seconds, found string "2s"',
        ),
        (
            {"card": "search", "shape": "tree", "truncated": False, "total": 0},
            "/shape",
            "unknown search shape 'tree'",
        ),
        (
            {"card": "search", "shape": "paths", "truncated": False, "total": 0, "paths": [1]},
            "/paths/0",
            "expected string, found integer 1",
        ),
        (
            {"card": "search", "shape": "matches", "truncated": "no", "total": 0},
            "/truncated",
            'expected boolean, found string "no"',
        ),
        (
            {"card": "read", "path": "a", "offset": 1, "lines": [{"number": 1}], "totalLines": 1},
            "/lines/0",
            "missing required key 'text'",
        ),
        (
            {"card": "read", "path": "a", "offset": 1, "lines": [], "total_lines": 1},
            "/total_lines",
            "unexpected key 'total_lines' (did you mean 'totalLines'?)",
        ),
        (
            {
                "card": "web",
                "kind": "search",
                "sources": [{"url": "u", "title": None}],
                "truncated": False,
            },
            "/sources/0/title",
            "expected string, found null",
        ),
        (
            {"card": "web", "kind": "fetch", "url": "u", "statusCode": "200", "truncated": False},
            "/statusCode",
            'expected integer, found string "200"',
        ),
        (
            {"card": "web", "kind": "fetch", "url": "u", "truncated": False},
            "",
            "missing required key 'statusCode'",
        ),
        ({"card": "code", "calls": 1}, "", "missing required key 'failed'"),
        (
            {"card": "code", "calls": 1, "failed": False},
            "/failed",
            "expected integer, found boolean false",
        ),
        (
            {"card": "code", "calls": 1, "failed": 0, "content": 1},
            "/content",
            "expected string, found integer 1",
        ),
    ],
)
def test_result_card_errors(value: object, path: str, reason: str) -> None:
    assert error_of(result_view_from_json(value)) == (path, reason)


def test_big_integers_keep_every_digit_and_oversized_ones_are_refused() -> None:
    big = TerminalResultCard(exit_code=10**80)
    check_wire(
        result_view_to_json(big),
        {"card": "terminal", "exitCode": 10**80},
        result_view_from_json,
        big,
    )
    path, reason = error_of(result_view_from_json({"card": "terminal", "exitCode": 10**4400}))
    assert (path, reason) == ("/exitCode", "the integer has more than 4300 digits")
